import { randomUUID } from 'node:crypto';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import {
	BUNDLE_FORMAT,
	BUNDLE_FORMAT_VERSION,
	BundleHeaderSchema,
	ConversationBundleSchema,
	type BundleRun,
	type ConversationBundle,
	type ImportResult
} from '../../protocol';
import { ApiError } from '../errors';
import type { Redactor } from '../secrets/redactor';
import type { TransferStorage } from '../storage/app-storage';
import { bundleProblem } from './bundle-check';
import { decodeCheckpoints, encodeCheckpoints, threadCheckpoints } from './bundle-codec';
import { withNewIds } from './bundle-ids';

export type ConversationBundlesParts = {
	transfer: TransferStorage;
	/** Reads the thread's checkpoints; its serializer writes and reads the bundle's values. */
	checkpointer: Pick<BaseCheckpointSaver, 'list' | 'serde'>;
	redactor: Pick<Redactor, 'redactSecrets'>;
};

/** Every string inside a JSON value with the known secrets taken out. */
function withoutSecrets<T>(value: T, redactor: ConversationBundlesParts['redactor']): T {
	const strip = (v: unknown): unknown => {
		if (typeof v === 'string') return redactor.redactSecrets(v);
		if (Array.isArray(v)) return v.map(strip);
		if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, strip(x)]));
		return v;
	};
	return strip(value) as T;
}

const refuse = (message: string) => new ApiError('BAD_REQUEST', `Not an importable bundle: ${message}`);

/** A conversation as one JSON document (protocol/bundle.ts) and back: GET …/export?format=bundle, POST /api/conversations/import. */
export class ConversationBundles {
	constructor(private readonly parts: ConversationBundlesParts) {}

	/**
	 * Everything needed to rebuild the conversation: its rows and every checkpoint of every branch,
	 * with the secrets Sophos knows taken out. 404 for an unknown conversation; 409
	 * SESSION_IN_PROGRESS while a run holds it (its last steps are still being written).
	 */
	async export(conversationId: string): Promise<ConversationBundle> {
		const { transfer, checkpointer, redactor } = this.parts;
		const records = await transfer.read(conversationId);
		if (!records) throw new ApiError('NOT_FOUND', 'Conversation Not Found');
		if (records.runs.some((r) => r.status === 'running')) {
			throw new ApiError('SESSION_IN_PROGRESS', 'A run is active on this conversation; export it once the run ends');
		}
		const { items, checkpoints } = await encodeCheckpoints(checkpointer.serde, await threadCheckpoints(checkpointer, conversationId));
		return withoutSecrets<ConversationBundle>(
			{
				format: BUNDLE_FORMAT,
				formatVersion: BUNDLE_FORMAT_VERSION,
				exportedAt: new Date().toISOString(),
				conversation: records.conversation,
				branch: records.branch,
				runs: records.runs as BundleRun[],
				journal: records.journal,
				approvals: records.approvals,
				items,
				checkpoints
			},
			redactor
		);
	}

	/**
	 * Creates the conversation a bundle holds, nothing run: under a new id (and new run ids), or
	 * under the bundle's own with `keepId`, refused with 409 CONVERSATION_EXISTS when that is taken
	 * and 409 RUN_EXISTS when another conversation holds one of its run ids.
	 * A bundle that is not one, of a newer format, malformed or inconsistent is a 400 naming the
	 * problem; nothing is created then.
	 */
	async import(raw: unknown, keepId: boolean): Promise<ImportResult> {
		const header = BundleHeaderSchema.safeParse(raw);
		if (!header.success) throw refuse(`expected {"format": "${BUNDLE_FORMAT}", "formatVersion": <n>, …}`);
		if (header.data.formatVersion > BUNDLE_FORMAT_VERSION) {
			throw refuse(`format version ${header.data.formatVersion} is newer than this Sophos reads (${BUNDLE_FORMAT_VERSION}): import it with a newer Sophos`);
		}
		const parsed = ConversationBundleSchema.safeParse(raw);
		if (!parsed.success) {
			const issue = parsed.error.issues[0]!;
			throw refuse(`${issue.path.join('.') || '(the document)'}: ${issue.message}`);
		}
		const problem = bundleProblem(parsed.data);
		if (problem) throw refuse(problem);
		const bundle = keepId ? parsed.data : withNewIds(parsed.data, randomUUID());
		let checkpoints;
		try {
			checkpoints = await decodeCheckpoints(this.parts.checkpointer.serde, bundle);
		} catch (e) {
			throw refuse(`a checkpoint value does not load: ${(e as Error).message}`);
		}
		const { conversation, branch, runs, journal, approvals } = bundle;
		const created = await this.parts.transfer.create({ conversation, branch, runs, journal, approvals }, checkpoints);
		if (created.status === 'conversation-taken') {
			throw new ApiError('CONVERSATION_EXISTS', `A conversation with id ${conversation.id} exists: import it under a new id`);
		}
		if (created.status === 'runs-taken') {
			const [first, ...more] = created.runIds;
			throw new ApiError(
				'RUN_EXISTS',
				`Run ${first}${more.length ? ` (and ${more.length} more)` : ''} of the bundle belongs to another conversation here: import it under new ids (without keepId)`
			);
		}
		return { conversation: conversation.id, checkpoints: checkpoints.length };
	}
}
