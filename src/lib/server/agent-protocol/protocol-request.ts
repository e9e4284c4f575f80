/**
 * What every protocol route checks before it calls the runtime: path parameters, the
 * assistant a request names, and the parts of the protocol Sophos does not do, which are refused
 * with 501 NOT_IMPLEMENTED and a body that says what, never answered as if they had been done.
 */
import { ApiError } from '../errors';
import { isAssistantId } from './assistant';
import { ThreadIdSchema, type History } from './request-schemas';
import type { HistoryQuery } from './thread-states';

/** A thread id from the path: a uuid, lower-cased; 422 naming `thread_id` otherwise. */
export function parseThreadId(param: string | undefined): string {
	const parsed = ThreadIdSchema.safeParse(param);
	if (!parsed.success) throw new ApiError('VALIDATION_FAILED', 'Invalid field "thread_id": expected a UUID');
	return parsed.data;
}

/** 404 for any assistant but Sophos's one (its uuid or `agent`). */
export function requireAssistant(param: string | undefined): void {
	if (param === undefined || !isAssistantId(param)) {
		throw new ApiError('NOT_FOUND', `Assistant ${param ?? ''} not found: Sophos has one, "agent"`);
	}
}

export function notImplemented(what: string): ApiError {
	return new ApiError('NOT_IMPLEMENTED', `${what} is not supported by Sophos (README: Use it from LangGraph's SDK and agent-chat-ui)`);
}

/** 501 naming the first of `fields` the body sets (not null), before anything changes. */
export function refuseUnsupported(body: Record<string, unknown>, fields: readonly string[], where: string): void {
	const set = fields.find((f) => body[f] !== undefined && body[f] !== null);
	if (set !== undefined) throw notImplemented(`"${set}" in ${where}`);
}

/** Default length of a history page, as the SDK's client asks when not told. */
const DEFAULT_HISTORY_LIMIT = 10;

export function historyQuery(body: History): HistoryQuery {
	const before =
		typeof body.before === 'string' ? body.before : body.before && 'configurable' in body.before ? body.before.configurable.checkpoint_id : body.before?.checkpoint_id;
	return {
		limit: body.limit ?? DEFAULT_HISTORY_LIMIT,
		...(before ? { before } : {}),
		...(body.metadata ? { metadata: body.metadata } : {}),
		...(body.checkpoint?.checkpoint_id ? { checkpoint: body.checkpoint.checkpoint_id } : {})
	};
}
