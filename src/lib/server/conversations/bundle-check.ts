// Pure. What makes a well-formed bundle (it parsed with ConversationBundleSchema) inconsistent:
// found before anything is written, each problem named, so an import refuses it whole.

import type { ConversationBundle } from '../../protocol';

/** The first duplicate among `keys`, if any. */
function duplicate(keys: readonly string[]): string | undefined {
	const seen = new Set<string>();
	for (const key of keys) {
		if (seen.has(key)) return key;
		seen.add(key);
	}
	return undefined;
}

/**
 * What a checkpoint value may revive: LangChain's messages (lc 1 constructors under
 * langchain_core.messages) and the serializer's own plain encodings (lc 2). Anything else the
 * loader would act on (another class, an lc `secret` it would look up) has no place in a conversation.
 */
function foreignObject(value: unknown, path: string): string | undefined {
	if (Array.isArray(value)) {
		for (let i = 0; i < value.length; i++) {
			const found = foreignObject(value[i], `${path}[${i}]`);
			if (found) return found;
		}
		return undefined;
	}
	if (value === null || typeof value !== 'object') return undefined;
	const record = value as Record<string, unknown>;
	if ('lc' in record) {
		const id = record.id;
		const message = record.lc === 1 && record.type === 'constructor' && Array.isArray(id) && id[0] === 'langchain_core' && id[1] === 'messages';
		if (!message && record.lc !== 2) return `${path} is a serialized ${JSON.stringify(record.type)} that a conversation never holds`;
	}
	for (const [key, v] of Object.entries(record)) {
		const found = foreignObject(v, `${path}.${key}`);
		if (found) return found;
	}
	return undefined;
}

/** The bundle's first inconsistency, as a sentence, or null when it holds together. */
export function bundleProblem(bundle: ConversationBundle): string | null {
	const runIds = bundle.runs.map((r) => r.id);
	const dupRun = duplicate(runIds);
	if (dupRun) return `run ${dupRun} appears twice`;
	const runs = new Set(runIds);
	const dupCall = duplicate(bundle.journal.map((j) => j.toolCallId));
	if (dupCall) return `tool call ${dupCall} appears twice in the journal`;
	const dupAsk = duplicate(bundle.approvals.map((a) => `${a.toolCallId} attempt ${a.attempt}`));
	if (dupAsk) return `approval of ${dupAsk} appears twice`;
	for (const entry of [...bundle.journal, ...bundle.approvals]) {
		if (!runs.has(entry.runId)) return `tool call ${entry.toolCallId} names run ${entry.runId}, which the bundle does not hold`;
	}
	const seen = new Set<string>();
	for (const c of bundle.checkpoints) {
		const key = `${c.ns}\0${c.id}`;
		if (seen.has(key)) return `checkpoint ${c.id} appears twice`;
		if (c.parentId !== null && !seen.has(`${c.ns}\0${c.parentId}`)) {
			return `checkpoint ${c.id} follows checkpoint ${c.parentId}, which does not come before it in the bundle`;
		}
		seen.add(key);
		for (const value of [...Object.values(c.values), ...c.writes.map((w) => w.value)]) {
			const missing = 'items' in value ? value.items.find((i) => i >= bundle.items.length) : undefined;
			if (missing !== undefined) return `checkpoint ${c.id} refers to item ${missing}, past the bundle's ${bundle.items.length} items`;
		}
		const foreign = foreignObject({ values: c.values, writes: c.writes, metadata: c.metadata, checkpoint: c.checkpoint }, `checkpoint ${c.id}`);
		if (foreign) return foreign;
	}
	const foreign = foreignObject(bundle.items, 'items');
	if (foreign) return foreign;
	if (bundle.branch) {
		if (!seen.has(`\0${bundle.branch.head}`)) return `the branch head ${bundle.branch.head} is not a checkpoint of the bundle`;
		const after = bundle.branch.switchedAfterRun;
		if (after !== null && !runs.has(after)) return `the branch was switched after run ${after}, which the bundle does not hold`;
	}
	return null;
}
