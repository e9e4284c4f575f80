import { z } from 'zod';
import { ApiError } from '../errors';

/** The most conversations one page may ask for. */
export const MAX_LIST_LIMIT = 1000;

/**
 * A page without `limit`: the sidebar's own page size. Issue 21: without it one answer held every
 * conversation, however many thousands, for any client that left `limit` out.
 */
export const DEFAULT_LIST_LIMIT = 100;

const LimitSchema = z
	.string()
	.regex(/^[0-9]+$/, 'must be a whole number')
	.transform(Number)
	.pipe(z.number().int().min(1).max(MAX_LIST_LIMIT));

/** `?limit=N` of GET /api/conversations: DEFAULT_LIST_LIMIT when absent, 400 when unusable or repeated. */
export function parseListLimit(params: URLSearchParams): number {
	const values = params.getAll('limit');
	if (values.length === 0) return DEFAULT_LIST_LIMIT;
	if (values.length > 1) throw new ApiError('BAD_REQUEST', 'Invalid query "limit": give it once');
	const parsed = LimitSchema.safeParse(values[0]);
	if (!parsed.success) {
		throw new ApiError('BAD_REQUEST', `Invalid query "limit": a whole number from 1 to ${MAX_LIST_LIMIT}`);
	}
	return parsed.data;
}

/** `?branches=` of the JSONL export: `active` (the default: the active branch's checkpoints) or `all`. */
export function parseBranchesQuery(params: URLSearchParams): 'active' | 'all' {
	const values = params.getAll('branches');
	if (values.length === 0) return 'active';
	if (values.length > 1 || (values[0] !== 'active' && values[0] !== 'all')) {
		throw new ApiError('BAD_REQUEST', 'Invalid query "branches": "active" or "all", once');
	}
	return values[0];
}

/** `?keepId=` of POST /api/conversations/import: `true` keeps the bundle's conversation id, `false` (the default) gives a new one. */
export function parseKeepIdQuery(params: URLSearchParams): boolean {
	const values = params.getAll('keepId');
	if (values.length === 0) return false;
	if (values.length > 1 || (values[0] !== 'true' && values[0] !== 'false')) {
		throw new ApiError('BAD_REQUEST', 'Invalid query "keepId": "true" or "false", once');
	}
	return values[0] === 'true';
}
