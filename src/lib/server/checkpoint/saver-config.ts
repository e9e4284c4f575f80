// Pure. Where a saver call writes, read from its config with the stock savers' checks and messages,
// shared by the SQLite and the PostgreSQL saver.

import type { RunnableConfig } from '@langchain/core/runnables';

/** `put`: the thread, namespace and parent checkpoint (as given; may be absent). */
export function putTarget(config: RunnableConfig): { threadId: string; ns: string; parentId: string | undefined } {
	if (!config.configurable) throw new Error('Empty configuration supplied.');
	const threadId = config.configurable.thread_id as string | undefined;
	if (!threadId) throw new Error(`Missing "thread_id" field in passed "config.configurable".`);
	const ns = (config.configurable.checkpoint_ns as string | undefined) ?? '';
	return { threadId, ns, parentId: config.configurable.checkpoint_id as string | undefined };
}

/** `putWrites`: the thread, namespace and checkpoint the writes belong to. */
export function writesTarget(config: RunnableConfig): { threadId: string; ns: string; checkpointId: string } {
	if (!config.configurable) throw new Error('Empty configuration supplied.');
	const threadId = config.configurable.thread_id as string | undefined;
	const checkpointId = config.configurable.checkpoint_id as string | undefined;
	if (!threadId) throw new Error('Missing thread_id field in config.configurable.');
	if (!checkpointId) throw new Error('Missing checkpoint_id field in config.configurable.');
	return { threadId, ns: (config.configurable.checkpoint_ns as string | undefined) ?? '', checkpointId };
}
