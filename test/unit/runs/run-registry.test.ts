import { describe, expect, it } from 'vitest';
import { ActiveRun } from '../../../src/lib/server/runs/active-run';
import { RunRegistry } from '../../../src/lib/server/runs/run-registry';

function endedRun(id: string, conversationId = `c-${id}`): ActiveRun {
	const run = new ActiveRun(id, conversationId, 100);
	run.log.publish({ event: 'token', data: `text of ${id}` });
	run.log.publish({ event: 'end', data: { conversation: conversationId, run: id, status: 'completed' } });
	return run;
}

/** The registry keeps the logs of the runs that ended last, for a page that names the run it started. */
describe('RunRegistry: ended runs', () => {
	it('keeps an ended run’s whole log, for its own conversation only, once it has left', () => {
		const registry = new RunRegistry();
		const run = endedRun('r1', 'c1');
		registry.add(run);
		expect(registry.endedLog('c1', 'r1')).toBeUndefined();
		registry.remove(run);
		expect(registry.get('c1')).toBeUndefined();
		expect(registry.endedLog('c1', 'r1')).toBe(run.log);
		expect(registry.endedLog('c2', 'r1')).toBeUndefined();
	});

	it('keeps no log of a run that left without its end', () => {
		const registry = new RunRegistry();
		const run = new ActiveRun('r1', 'c1', 100);
		registry.add(run);
		registry.remove(run);
		expect(registry.endedLog('c1', 'r1')).toBeUndefined();
	});

	it('forgets the oldest once 32 are kept', () => {
		const registry = new RunRegistry();
		const runs = Array.from({ length: 33 }, (_, i) => endedRun(`r${i}`));
		for (const run of runs) {
			registry.add(run);
			registry.remove(run);
		}
		expect(registry.endedLog('c-r0', 'r0')).toBeUndefined();
		expect(runs.slice(1).every((run) => registry.endedLog(run.conversationId, run.id) === run.log)).toBe(true);
	});
});
