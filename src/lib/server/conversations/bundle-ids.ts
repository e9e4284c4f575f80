// Pure. A bundle imported under a new conversation id takes new run ids too: run ids are unique in
// the whole database (the original may sit beside its copy), and a user message's id is its run's.

import { randomUUID } from 'node:crypto';
import type { ConversationBundle } from '../../protocol';

/**
 * The bundle with its conversation id and every run id replaced by new ones, wherever a string
 * equal to one of them stands (rows, message ids, checkpoint metadata); text that merely contains
 * one is left as it is.
 */
export function withNewIds(bundle: ConversationBundle, conversationId: string, newRunId: () => string = randomUUID): ConversationBundle {
	const ids = new Map<string, string>([[bundle.conversation.id, conversationId]]);
	for (const run of bundle.runs) ids.set(run.id, newRunId());
	const swap = (value: unknown): unknown => {
		if (typeof value === 'string') return ids.get(value) ?? value;
		if (Array.isArray(value)) return value.map(swap);
		if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, swap(v)]));
		return value;
	};
	return swap(bundle) as ConversationBundle;
}
