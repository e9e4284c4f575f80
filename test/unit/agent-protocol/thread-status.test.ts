import { describe, expect, it } from 'vitest';
import { RunStatusSchema } from '../../../src/lib/protocol';
import { runStatusesFor, threadStatusOf } from '../../../src/lib/server/agent-protocol/thread-status';

describe('thread status', () => {
	it('maps every latest-run status, and no run, onto the protocol', () => {
		expect(threadStatusOf(null)).toBe('idle');
		expect(threadStatusOf('running')).toBe('busy');
		expect(threadStatusOf('waiting')).toBe('interrupted');
		expect(threadStatusOf('interrupted')).toBe('interrupted');
		expect(threadStatusOf('failed')).toBe('error');
		expect(threadStatusOf('completed')).toBe('idle');
		expect(threadStatusOf('cancelled')).toBe('idle');
	});

	it('inverts for a search: every run status falls in exactly one thread status', () => {
		const all = (['idle', 'busy', 'interrupted', 'error'] as const).flatMap((s) => runStatusesFor(s));
		expect(all.sort()).toEqual([...RunStatusSchema.options, null].sort());
		expect(runStatusesFor('idle')).toContain(null);
		for (const s of runStatusesFor('interrupted')) expect(threadStatusOf(s)).toBe('interrupted');
	});
});
