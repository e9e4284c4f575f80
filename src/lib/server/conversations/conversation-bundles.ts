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
import type { ConversationNotFound } from '../runs/run-refusal';
import type { Redactor } from '../secrets/redactor';
import type { TransferStorage } from '../storage/transfer-storage';
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

/** The expected ways an export or an import is refused; the edge (http/run-refusal-error.ts) answers each. */
export type BundleRefusal =
	| ConversationNotFound
	/** A run holds the conversation: its last steps are still being written. */
	| { refused: 'export-while-running' }
	/** Not a bundle, of a newer format, malformed or inconsistent; `problem` names what. */
	| { refused: 'bundle-invalid'; problem: string }
	/** `keepId`, and a conversation here has the bundle's id. */
	| { refused: 'conversation-exists'; conversationId: string }
	/** Another conversation here holds these run ids of the bundle. */
	| { refused: 'runs-taken'; runIds: string[] };

const invalid = (problem: string): BundleRefusal => ({ refused: 'bundle-invalid', problem });

/** A conversation as one JSON document (protocol/bundle.ts) and back: GET …/export?format=bundle, POST /api/conversations/import. */
export class ConversationBundles {
	constructor(private readonly parts: ConversationBundlesParts) {}

	/**
	 * Everything needed to rebuild the conversation: its rows and every checkpoint of every branch,
	 * with the secrets Sophos knows taken out; refused for an unknown conversation and while a
	 * run holds it.
	 */
	async export(conversationId: string): Promise<ConversationBundle | BundleRefusal> {
		const { transfer, checkpointer, redactor } = this.parts;
		const records = await transfer.read(conversationId);
		if (!records) return { refused: 'conversation-not-found' };
		if (records.runs.some((r) => r.status === 'running')) return { refused: 'export-while-running' };
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
	 * under the bundle's own with `keepId`, refused when that is taken or when another
	 * conversation holds one of its run ids. A bundle that is not one, of a newer format,
	 * malformed or inconsistent is refused naming the problem. Nothing is created when refused.
	 */
	async import(raw: unknown, keepId: boolean): Promise<ImportResult | BundleRefusal> {
		const header = BundleHeaderSchema.safeParse(raw);
		if (!header.success) return invalid(`expected {"format": "${BUNDLE_FORMAT}", "formatVersion": <n>, …}`);
		if (header.data.formatVersion > BUNDLE_FORMAT_VERSION) {
			return invalid(`format version ${header.data.formatVersion} is newer than this Sophos reads (${BUNDLE_FORMAT_VERSION}): import it with a newer Sophos`);
		}
		const parsed = ConversationBundleSchema.safeParse(raw);
		if (!parsed.success) {
			const issue = parsed.error.issues[0]!;
			return invalid(`${issue.path.join('.') || '(the document)'}: ${issue.message}`);
		}
		const problem = bundleProblem(parsed.data);
		if (problem) return invalid(problem);
		const bundle = keepId ? parsed.data : withNewIds(parsed.data, randomUUID());
		let checkpoints;
		try {
			checkpoints = await decodeCheckpoints(this.parts.checkpointer.serde, bundle);
		} catch (e) {
			return invalid(`a checkpoint value does not load: ${(e as Error).message}`);
		}
		const { conversation, branch, runs, journal, approvals } = bundle;
		const created = await this.parts.transfer.create({ conversation, branch, runs, journal, approvals }, checkpoints);
		if (created.status === 'conversation-taken') return { refused: 'conversation-exists', conversationId: conversation.id };
		if (created.status === 'runs-taken') return { refused: 'runs-taken', runIds: created.runIds };
		return { conversation: conversation.id, checkpoints: checkpoints.length };
	}
}
