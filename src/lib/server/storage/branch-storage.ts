/**
 * The active branch of each conversation whose thread has branched: the checkpoint its messages are
 * read from and its next run starts at. Without one, the thread's latest checkpoint. The head follows
 * each checkpoint put on it inside that put's transaction, which is the saver's to do (the SQLite
 * saver's onPut; DeltaPostgresSaver's onPut with postgres/app/branch-storage.ts advanceBranchHead).
 */
export interface BranchStorage {
	head(conversationId: string): Promise<string | undefined>;
	/** The newest run when the branch was last switched, if it ever was. */
	switchedAfterRun(conversationId: string): Promise<string | null>;
	/**
	 * Makes the branch ending at `checkpointId` the active one, in one transaction with the checks
	 * that refuse it: 'busy' while a run holds the conversation, 'waiting' while calls of the active
	 * branch wait for a decision; then nothing changes. Remembers the conversation's newest run (see
	 * readThreadWork), and the conversation takes the branch's message count and, when known, its
	 * last write time. No run can be claimed between the checks and the switch.
	 */
	switchTo(
		conversationId: string,
		checkpointId: string,
		shown: { messageCount: number; updatedAt: string | undefined }
	): Promise<'switched' | 'busy' | 'waiting'>;
}
