import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { inProcessTests } from '../support/in-process';
import { callsScript } from '../support/scripts';
import { eventsOfRun, startedRun } from '../support/run-events';

const CALLS = 30;

// Issue 21: every tool call of a step added an abort listener to the step's one signal and never
// removed it, so Node warned at the 11th (MaxListenersExceededWarning) and the step kept them all.
describe('abort listeners, in process', () => {
	const harness = inProcessTests();
	const warnings: Error[] = [];
	const onWarning = (warning: Error) => warnings.push(warning);
	beforeEach(() => {
		warnings.length = 0;
		process.on('warning', onWarning);
	});
	afterEach(() => {
		process.off('warning', onWarning);
	});

	// The calls of one step are made one after another under the step's signal.
	it(`a step of ${CALLS} tool calls ends without a MaxListenersExceededWarning`, async () => {
		const step = Array.from({ length: CALLS }, () => ({ name: 'test__peek', arguments: {} }));
		const ollama = await harness.model(callsScript([step]));
		const { runtime, calls } = await harness.start({ ollamaUrl: ollama.url, env: { MAX_TOOL_CALLS_PER_STEP: String(CALLS) } });
		const started = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'peek' }));
		const events = await eventsOfRun(runtime, started.run);
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(calls().filter((line) => line.startsWith('peek'))).toHaveLength(CALLS);
		// Warnings are emitted on the next tick; the end event has already been read after them.
		await new Promise((resolve) => setImmediate(resolve));
		expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning').map((w) => w.message)).toEqual([]);
	});
});
