import { describe, expect, it } from 'vitest';
import { claimRefusal, onBusy, planRun, queuedFork, runInputOf } from '../../../src/lib/server/runs/run-plan';
import type { IfBusy } from '../../../src/lib/protocol';

describe('planRun', () => {
	it('a message claims with its text and model, and queues as itself', () => {
		expect(planRun({ kind: 'message', conversation: 'c', message: 'hi', ifBusy: 'enqueue', model: 'ollama/a' })).toEqual({
			conversation: 'c',
			trigger: 'message',
			input: 'hi',
			claimModel: 'ollama/a',
			fork: null,
			ifBusy: 'enqueue',
			queued: {}
		});
	});

	it('a resume claims with no input and no model (set once it is sure to go ahead), and never queues', () => {
		expect(planRun({ kind: 'resume', conversation: 'c', model: 'ollama/a', trigger: 'auto-resume' })).toMatchObject({
			trigger: 'auto-resume',
			input: null,
			claimModel: undefined,
			fork: null,
			ifBusy: 'reject'
		});
		expect(planRun({ kind: 'resume', conversation: 'c' }).trigger).toBe('resume');
	});

	it('an edit forks before the message it replaces and sends the new text; a regenerate forks and sends none', () => {
		expect(planRun({ kind: 'edit', conversation: 'c', editOf: 'm1', message: 'new' })).toMatchObject({
			trigger: 'edit',
			input: 'new',
			fork: { kind: 'edit', messageId: 'm1' },
			ifBusy: 'reject',
			queued: { editOf: 'm1' }
		});
		expect(planRun({ kind: 'regenerate', conversation: 'c', messageId: 'a1', ifBusy: 'interrupt' })).toMatchObject({
			trigger: 'regenerate',
			input: null,
			fork: { kind: 'regenerate', messageId: 'a1' },
			ifBusy: 'interrupt',
			queued: { regenerate: 'a1' }
		});
	});

	it('a queued copy starts the same branch as the request it was', () => {
		expect(queuedFork({ editOf: 'm1' })).toEqual({ kind: 'edit', messageId: 'm1' });
		expect(queuedFork({ regenerate: 'a1' })).toEqual({ kind: 'regenerate', messageId: 'a1' });
		expect(queuedFork({})).toBeNull();
		expect(runInputOf('r', null)).toEqual({ kind: 'regenerate' });
		expect(runInputOf('r', 'hi')).toEqual({ kind: 'message', input: { id: 'r', message: 'hi' } });
	});
});

describe('onBusy, the busy rules', () => {
	const cases: [claim: 'busy' | 'full', ifBusy: IfBusy, runningHere: boolean, expected: ReturnType<typeof onBusy>][] = [
		['busy', 'enqueue', false, 'queue'],
		['full', 'enqueue', false, 'queue'],
		['full', 'interrupt', true, { refused: 'full', maxConcurrentRuns: 4 }],
		['full', 'reject', false, { refused: 'full', maxConcurrentRuns: 4 }],
		['busy', 'interrupt', true, 'interrupt'],
		// A run another instance executes is not interrupted from here.
		['busy', 'interrupt', false, { refused: 'busy' }],
		['busy', 'reject', true, { refused: 'busy' }]
	];
	it.each(cases)('%s claim, ifBusy %s, running here %s', (claim, ifBusy, runningHere, expected) => {
		expect(onBusy(claim, ifBusy, runningHere, 4)).toEqual(expected);
	});

	it('a request that neither queues nor interrupts is refused as full or busy', () => {
		expect(claimRefusal('full', 2)).toEqual({ refused: 'full', maxConcurrentRuns: 2 });
		expect(claimRefusal('busy', 2)).toEqual({ refused: 'busy' });
	});
});
