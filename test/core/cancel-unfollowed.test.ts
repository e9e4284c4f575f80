import { describe, expect, it } from 'vitest';
import { inProcessTests } from '../support/in-process';
import { startedRun } from '../support/run-events';
import { answerScript } from '../support/scripts';

// on_disconnect "cancel" (the Agent Server protocol): RunService cancels a run once no reader
// follows it, read again in the turn that cancels, so exactly one leaver cancels.
describe('cancelIfUnfollowed, in process', () => {
	const harness = inProcessTests();

	it('leaves a followed run alone, cancels it once its last reader has gone, and only once', async () => {
		const ollama = await harness.model(answerScript('A long answer, held after its first chunk.', { hold: 'left', holdAfterChunks: 1 }));
		const { runtime } = await harness.start({ ollamaUrl: ollama.url });
		const { runService } = runtime;
		const { run, conversation } = startedRun(await runService.start({ kind: 'message', conversation: null, message: 'hello' }));
		await ollama.held('left');
		const log = runService.registry.getById(run)!.log;
		const readers = [log.follow(0, () => {}), log.follow(0, () => {})];

		readers[0]!.detach();
		expect(await runService.cancelIfUnfollowed(run)).toBeNull();
		readers[1]!.detach();
		// Two leavers at once: one cancels, the other finds the run already stopping.
		const [first, second] = await Promise.all([runService.cancelIfUnfollowed(run), runService.cancelIfUnfollowed(run)]);
		expect(first).toMatchObject({ conversation, run, status: 'cancelled' });
		expect(second).toBeNull();
		expect((await runtime.storage.runs.get(run))?.status).toBe('cancelled');
		expect(await runService.cancelIfUnfollowed(run)).toBeNull();
		ollama.release('left');
	});

	it('never cancels a run this process does not execute', async () => {
		const ollama = await harness.model(answerScript('Done.'));
		const { runtime } = await harness.start({ ollamaUrl: ollama.url });
		expect(await runtime.runService.cancelIfUnfollowed('no-such-run')).toBeNull();
	});
});
