import type { ConversationPage, ConversationSummary } from '../../protocol';

export type ConversationDeletion = 'deleted' | 'not-found' | 'running';

export interface ConversationStorage {
	get(id: string): Promise<ConversationSummary | undefined>;
	exists(id: string): Promise<boolean>;
	/** The `limit` most recently updated, and whether there are more (the list's order, cut short). */
	firstPage(limit: number): Promise<ConversationPage>;
	/**
	 * Creates the conversation (answering with `model`, or DEFAULT_MODEL) and claims its first run (a
	 * message run carrying `firstMessage`) in one transaction; 'full' creates nothing (there is no
	 * run to queue behind). Throws, changing nothing, when the id is taken.
	 */
	createWithRun(id: string, runId: string, firstMessage: string, now: string, model?: string): Promise<'claimed' | 'full'>;
	/** The `<provider>/<model>` the conversation's runs answer with; null: DEFAULT_MODEL. */
	model(id: string): Promise<string | null>;
	/** Chooses the model for this and later runs; only a run that has claimed the conversation does this. */
	setModel(id: string, model: string): Promise<void>;
	/**
	 * Removes the conversation with its runs, queued messages, journal entries and checkpoints, in one
	 * transaction committed durably (a power cut cannot bring it back). 'not-found' for an unknown
	 * conversation and 'running' while a run holds it, changing nothing.
	 */
	delete(id: string): Promise<ConversationDeletion>;
}
