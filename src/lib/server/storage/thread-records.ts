// Threads as the LangGraph Agent Server protocol sees conversations: the conversation's row with
// the metadata a client gave it, and the filters and orders its search and count take.

import type { ConversationSummary, RunStatus } from '../../protocol';

export type ThreadMetadata = Record<string, unknown>;

export type ThreadRecord = { conversation: ConversationSummary; metadata: ThreadMetadata };

/**
 * Every condition given must hold. `metadata`: each top-level key names a value the thread's
 * metadata holds under that key, compared as JSON (objects equal whatever their key order).
 * `latestRun`: the status of the conversation's latest run is one of these (null: it never ran).
 */
export type ThreadFilter = {
	metadata?: ThreadMetadata;
	ids?: readonly string[];
	latestRun?: readonly (RunStatus | null)[];
};

/** `updatedAt` is the conversation's last message write, the order of Sophos's own list. */
export type ThreadOrder = { by: 'id' | 'status' | 'createdAt' | 'updatedAt'; direction: 'asc' | 'desc' };

export type ThreadPageRequest = { order: ThreadOrder; limit: number; offset: number };

/** The stored metadata as read back (text in both engines: see the migrations); `{}` for anything not an object. */
export function parseMetadata(text: string): ThreadMetadata {
	const value: unknown = JSON.parse(text);
	return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as ThreadMetadata) : {};
}
