import type { ThreadReader } from '../agent/thread-reader';
import type { ConversationStore } from '../db/conversation-store';
import type { RunStore } from '../db/run-store';

/**
 * Start-up recovery, before any run starts: each run still `running` was owned by a process that
 * died. One whose thread had already finished (the crash fell between the final checkpoint and
 * recording the outcome) is `completed`; the rest are `interrupted`. Message counts are recomputed
 * from the threads. Returns the interrupted runs' conversations.
 */
export async function recoverRuns(parts: {
	runs: RunStore;
	conversations: ConversationStore;
	threads: ThreadReader;
	now: () => string;
}): Promise<string[]> {
	const interrupted: string[] = [];
	for (const { id, conversationId } of parts.runs.listRunning()) {
		const { messages, pending } = await parts.threads.state(conversationId);
		const input = parts.runs.get(id)?.input;
		const inputLost = input != null && !messages.some((m) => m.id === id);
		const finished = pending.length === 0 && !inputLost;
		parts.runs.finish(
			id,
			finished
				? { status: 'completed', messageCount: messages.length }
				: {
						status: 'interrupted',
						error: { code: 'PROCESS_EXITED', message: 'The service stopped during this run; resume it to continue.' },
						messageCount: messages.length
					},
			parts.now()
		);
		if (!finished) interrupted.push(conversationId);
	}
	return interrupted;
}
