import { describe, expect, it, vi } from 'vitest';
import { DeltaSqliteSaver } from '../../src/lib/server/sqlite/checkpoint/saver';
import { EventLog } from '../../src/lib/server/stream/event-log';
import { inProcessTests } from '../support/in-process';
import { eventsOfRun, startedRun } from '../support/run-events';
import { callsScript } from '../support/scripts';

/**
 * A run's checkpoint writes may be acknowledged before they commit (PostgreSQL,
 * checkpoint/acknowledged-writes.ts): what the run does on top of a step waits for them, whatever
 * the engine. Here the wait is held open, and nothing is recorded or called until it is let go.
 */
describe('what a run waits for before it acts', () => {
	const tests = inProcessTests();

	it("a tool's journal entry and call wait for the step that asked for them; the outcome for the last step", async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const order: string[] = [];
		let letGo!: () => void;
		const held = new Promise<void>((resolve) => (letGo = resolve));
		let waiting!: () => void;
		const waited = new Promise<void>((resolve) => (waiting = resolve));
		const committed = DeltaSqliteSaver.prototype.committed;
		vi.spyOn(DeltaSqliteSaver.prototype, 'committed').mockImplementation(async function (this: DeltaSqliteSaver) {
			order.push('committed');
			if (order.length === 1) {
				waiting();
				await held;
			}
			return committed.call(this);
		});
		const { journal, runs } = runtime.storage;
		const intent = journal.recordIntent.bind(journal);
		vi.spyOn(journal, 'recordIntent').mockImplementation((...args) => (order.push('intent'), intent(...args)));
		const finish = runs.finish.bind(runs);
		vi.spyOn(runs, 'finish').mockImplementation((...args) => (order.push('finish'), finish(...args)));

		const started = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'look' }));
		await waited;
		expect(order).toEqual(['committed']);
		letGo();
		const events = await eventsOfRun(runtime, started.run);
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(order).toEqual(['committed', 'intent', 'committed', 'finish']);
	});

	it("a step's end is announced after the step is stored, so a read of the thread then finds it", async () => {
		const ollama = await tests.model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime } = await tests.start({ ollamaUrl: ollama.url });
		const order: string[] = [];
		const settled = DeltaSqliteSaver.prototype.settled;
		vi.spyOn(DeltaSqliteSaver.prototype, 'settled').mockImplementation(function (this: DeltaSqliteSaver) {
			order.push('settled');
			return settled.call(this);
		});
		const publish = EventLog.prototype.publish;
		vi.spyOn(EventLog.prototype, 'publish').mockImplementation(function (this: EventLog, event) {
			if (event.event === 'trace' && event.data.event === 'leave') order.push(`leave ${event.data.node}`);
			return publish.call(this, event);
		});
		const started = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'look' }));
		const events = await eventsOfRun(runtime, started.run);
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(order).toEqual(['settled', 'leave agent', 'settled', 'leave tools', 'settled', 'leave agent']);
	});
});
