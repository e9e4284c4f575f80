import { describe, expect, it, vi } from 'vitest';
import { inProcessTests } from '../support/in-process';
import { sentMessage } from '../support/run-events';
import { callsScript } from '../support/scripts';

/**
 * A tool call's journal outcome is sent without the tools step waiting for its commit (issue 26: a
 * round trip in sequence on PostgreSQL); the run's end waits for it, and a failed one fails the run.
 */
describe("a call's outcome, not waited for by its step", () => {
	const tests = inProcessTests();

	it('lets the next step ask the model while the outcome is unwritten, and ends the run only once it is written', async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const { journal, runs } = runtime.storage;
		const record = journal.recordOutcome.bind(journal);
		let statusAtRelease: string | undefined;
		vi.spyOn(journal, 'recordOutcome').mockImplementation(async (threadId, toolCallId, runId, outcome, now) => {
			// Held until the step after the tools step has asked the model: a tools step that waited
			// for its outcome would hold that request back for ever.
			await vi.waitFor(() => expect(ollama.requests).toHaveLength(2), { timeout: 30_000, interval: 5 });
			statusAtRelease = (await runs.get(runId))?.status;
			return record(threadId, toolCallId, runId, outcome, now);
		});
		const run = await sentMessage(runtime, 'look');
		expect(statusAtRelease).toBe('running');
		expect(run.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		const calls = (await runtime.threads.messages(run.conversation)).flatMap((m) => ('tool_calls' in m ? ((m.tool_calls as { id: string }[] | undefined) ?? []) : []));
		expect(calls).toHaveLength(1);
		expect(await journal.get(run.conversation, calls[0]!.id)).toMatchObject({ outcome: 'success' });
	});

	it('fails the run whose outcome could not be written', async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		vi.spyOn(runtime.storage.journal, 'recordOutcome').mockRejectedValue(new Error('the journal is gone'));
		const run = await sentMessage(runtime, 'look');
		// As when the step waited for it: the run's failure, told to its readers.
		expect(run.events.at(-1)).toMatchObject({ event: 'chat-error', data: { code: 'AGENT_FAILURE', run: run.run } });
		expect(await runtime.storage.runs.get(run.run)).toMatchObject({ status: 'failed' });
	});
});
