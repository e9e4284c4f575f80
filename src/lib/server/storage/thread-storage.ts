import type { ThreadFilter, ThreadMetadata, ThreadPageRequest, ThreadRecord } from './thread-records';

/**
 * Conversations as threads of the LangGraph Agent Server protocol (agent-protocol/): one store, so
 * a thread an SDK client makes is a conversation on Sophos's page and every conversation is a
 * thread. The metadata is the client's: Sophos stores it and filters on it, never reads it.
 */
export interface ThreadStorage {
	/**
	 * Creates a conversation with no run (title "New Conversation", DEFAULT_MODEL) holding `metadata`;
	 * 'exists', changing nothing, when the id is taken.
	 */
	create(id: string, now: string, metadata: ThreadMetadata): Promise<'created' | 'exists'>;
	get(id: string): Promise<ThreadRecord | undefined>;
	/** Sets each key of `patch` in the thread's metadata, keeping the others; false for an unknown thread. */
	mergeMetadata(id: string, patch: ThreadMetadata): Promise<boolean>;
	/** The threads `filter` keeps, in `page.order` (ties: the order they were made in), `limit` from `offset`. */
	search(filter: ThreadFilter, page: ThreadPageRequest): Promise<ThreadRecord[]>;
	count(filter: ThreadFilter): Promise<number>;
}
