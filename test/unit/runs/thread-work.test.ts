import { describe, expect, it } from 'vitest';
import { stepsToResume, threadWork, type LastRun, type ThreadSnapshot, type ThreadWork } from '../../../src/lib/server/runs/thread-work';

const run = (id: string, input: string | null = null): LastRun => ({ id, input });

describe('threadWork', () => {
	const cases: [string, ThreadSnapshot, LastRun | undefined, ThreadWork][] = [
		['a new thread that never ran', { messageIds: [], pending: [], awaitingDecision: 0 }, undefined, { kind: 'finished' }],
		['a finished message run', { messageIds: ['r1', 'a1'], pending: [], awaitingDecision: 0 }, run('r1', 'hi'), { kind: 'finished' }],
		['a finished resume (no input of its own)', { messageIds: ['r1', 'a1'], pending: [], awaitingDecision: 0 }, run('r2'), { kind: 'finished' }],
		['a pending model step', { messageIds: ['r1'], pending: ['agent'], awaitingDecision: 0 }, run('r1', 'hi'), { kind: 'unfinished', pending: ['agent'], lostInput: null }],
		['a pending tools step', { messageIds: ['r1', 'a1'], pending: ['tools'], awaitingDecision: 0 }, run('r1', 'hi'), { kind: 'unfinished', pending: ['tools'], lostInput: null }],
		[
			'a message the crash kept from the thread',
			{ messageIds: ['r1', 'a1'], pending: [], awaitingDecision: 0 },
			run('r2', 'again'),
			{ kind: 'unfinished', pending: [], lostInput: { id: 'r2', message: 'again' } }
		],
		[
			'a lost message behind a pending step',
			{ messageIds: ['r1'], pending: ['agent'], awaitingDecision: 0 },
			run('r2', 'again'),
			{ kind: 'unfinished', pending: ['agent'], lostInput: { id: 'r2', message: 'again' } }
		],
		['a tools step that waits for a person', { messageIds: ['r1', 'a1'], pending: ['tools'], awaitingDecision: 2 }, run('r1', 'hi'), { kind: 'waiting', calls: 2 }],
		[
			'a message sent to a waiting thread that a crash kept from it: sending it again closes the calls',
			{ messageIds: ['r1', 'a1'], pending: ['tools'], awaitingDecision: 1 },
			run('r2', 'never mind'),
			{ kind: 'unfinished', pending: ['tools'], lostInput: { id: 'r2', message: 'never mind' } }
		],
		['an empty message is still a message', { messageIds: [], pending: [], awaitingDecision: 0 }, run('r1', ''), { kind: 'unfinished', pending: [], lostInput: { id: 'r1', message: '' } }]
	];
	it.each(cases)('%s', (_name, thread, lastRun, expected) => {
		expect(threadWork(thread, lastRun)).toEqual(expected);
	});

	it('resumes a lost message with the model first, else the pending steps', () => {
		expect(stepsToResume({ kind: 'finished' })).toEqual([]);
		expect(stepsToResume({ kind: 'waiting', calls: 1 })).toEqual([]);
		expect(stepsToResume({ kind: 'unfinished', pending: ['tools'], lostInput: null })).toEqual(['tools']);
		expect(stepsToResume({ kind: 'unfinished', pending: ['tools'], lostInput: { id: 'r', message: 'm' } })).toEqual(['agent']);
	});
});
