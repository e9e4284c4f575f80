import type { ThreadCheckpoint } from '../checkpoint/thread-put';
import type { ConversationRecords } from './transfer-records';

/**
 * A conversation taken out whole and put back whole, for its bundle (conversations/bundle-*.ts):
 * its rows, and with them on the way in its checkpoints.
 */
export interface TransferStorage {
	/** The conversation's row, branch head, runs (oldest first), journal and approvals; undefined for an unknown id. */
	read(conversationId: string): Promise<ConversationRecords | undefined>;
	/**
	 * Creates the conversation with its rows and puts its checkpoints (parents first, as given) in
	 * one transaction: all of it or nothing (a row refused after the puts takes them back too). No branch head moves with the puts; the records' branch
	 * is the head. Nothing changes when an id the records carry is another conversation's: the
	 * conversation id, or a run id (run ids are unique in the whole database, while tool calls,
	 * approvals and checkpoints are keyed by their conversation). Each engine judges that by its own
	 * uniqueness check inside the transaction, so a concurrent writer of the same id cannot slip in.
	 */
	create(records: ConversationRecords, checkpoints: readonly ThreadCheckpoint[]): Promise<TransferResult>;
}

/** What TransferStorage.create did; `runIds`: every run id of the records another conversation holds. */
export type TransferResult = { status: 'created' } | { status: 'conversation-taken' } | { status: 'runs-taken'; runIds: string[] };
