import { readThreadWork, type ThreadWorkSources } from './read-thread-work';

/**
 * Start-up recovery, before any run starts: each run still `running` was owned by a process that
 * died. One whose thread had already finished (the crash fell between the final checkpoint and
 * recording the outcome) is `completed`; the rest are `interrupted`. Message counts are recomputed
 * from the threads. Returns the interrupted runs' conversations.
 */
export async function recoverRuns(parts: ThreadWorkSources & { now: () => string }): Promise<string[]> {
	const interrupted: string[] = [];
	for (const { id, conversationId } of parts.runs.listRunning()) {
		const work = await readThreadWork(parts, conversationId, { id, input: parts.runs.get(id)?.input ?? null });
		const messageCount = await parts.threads.messageCount(conversationId);
		parts.runs.finish(
			id,
			work.kind === 'finished'
				? { status: 'completed', messageCount }
				: {
						status: 'interrupted',
						error: { code: 'PROCESS_EXITED', message: 'The service stopped during this run; resume it to continue.' },
						messageCount
					},
			parts.now()
		);
		if (work.kind === 'unfinished') interrupted.push(conversationId);
	}
	return interrupted;
}
