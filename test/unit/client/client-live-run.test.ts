import { describe, expect, it } from 'vitest';
import { applyRunEvent, emptyLiveRun, settledLiveRun, type LiveRun } from '../../../src/lib/client/live-run';
import type { StreamEvent } from '../../../src/lib/protocol';
import { ev } from '../../support/client-fakes';

const apply = (events: StreamEvent[], from: LiveRun = emptyLiveRun()) => events.reduce(applyRunEvent, from);

/** The walkthrough's first three steps as the server streams them. */
const WALK: StreamEvent[] = [
	ev.enter(1, 1),
	ev.reasoning(2, 'I should '),
	ev.reasoning(3, 'look.'),
	ev.call(4, 1, 'memory__read_graph', 'call-a'),
	ev.leave(5, 1),
	ev.enter(6, 2, 'tools'),
	ev.result(7, 2, 'memory__read_graph', 'call-a', '{}'),
	ev.leave(8, 2, 'tools'),
	ev.enter(9, 3),
	ev.token(10, 'Now I '),
	ev.token(11, 'save.'),
	ev.call(12, 3, 'memory__add_observations', 'call-b', { x: 1 }),
	ev.leave(13, 3),
	ev.enter(14, 4, 'tools'),
	ev.result(15, 4, 'memory__add_observations', 'call-b', 'Entity not found', 'error')
];

describe('applyRunEvent', () => {
	it('groups each agent step into one assistant segment with its thinking, text and calls', () => {
		const run = apply(WALK);
		expect(run.items).toEqual([
			{ kind: 'assistant', key: 'live-2', step: 1, reasoning: 'I should look.', text: '', toolCalls: [{ id: 'call-a', name: 'memory__read_graph', args: {} }] },
			{ kind: 'tool', key: 'live-7', step: 2, toolCallId: 'call-a', name: 'memory__read_graph', status: 'success', content: '{}' },
			{ kind: 'assistant', key: 'live-10', step: 3, reasoning: '', text: 'Now I save.', toolCalls: [{ id: 'call-b', name: 'memory__add_observations', args: { x: 1 } }] },
			{ kind: 'tool', key: 'live-15', step: 4, toolCallId: 'call-b', name: 'memory__add_observations', status: 'error', content: 'Entity not found' }
		]);
		expect(run.lastEventId).toBe(15);
		expect(run.hasOutput).toBe(true);
	});

	it('goes on with a run that carries on the stream of one whose owner died: its ids lie above, a replay of it adds nothing twice', () => {
		const SPAN = 2 ** 32;
		const dead = [ev.enter(1, 1), ev.token(2, 'Half an ')];
		const resumed = [ev.enter(SPAN + 1, 1), ev.token(SPAN + 2, 'All of '), ev.token(SPAN + 3, 'it.')];
		// The reader's connection dropped after the resumed run's first token and came back with its id.
		const run = apply([...dead, ...resumed.slice(0, 2), ...resumed, ev.end(SPAN + 4, 'completed')]);
		expect(run.items.map((i) => (i.kind === 'assistant' ? i.text : i.content))).toEqual(['Half an ', 'All of it.']);
		expect(run.lastEventId).toBe(SPAN + 4);
		expect(run.outcome).toEqual({ kind: 'end', status: 'completed', run: 'run-1' });
	});

	it('keeps a timeline entry per trace event, with the result status', () => {
		const run = apply(WALK);
		expect(run.timeline.map((t) => `${t.step}:${t.event}:${t.node}`)).toEqual([
			'1:enter:agent', '1:call:tools', '1:leave:agent', '2:enter:tools', '2:result:tools', '2:leave:tools',
			'3:enter:agent', '3:call:tools', '3:leave:agent', '4:enter:tools', '4:result:tools'
		]);
		expect(run.timeline.filter((t) => t.event === 'result').map((t) => t.status)).toEqual(['success', 'error']);
	});

	it('skips events at or below the last id, so a replay followed by live events adds each piece once', () => {
		const firstHalf = apply(WALK.slice(0, 10));
		// A reconnect replays from an id the client already has; everything up to 10 is a duplicate.
		const replayed = apply(WALK.slice(6), firstHalf);
		expect(replayed).toEqual(apply(WALK));
		expect(applyRunEvent(replayed, ev.token(11, 'save.'))).toBe(replayed);
	});

	it('starts no output until something a reader sees arrives', () => {
		expect(apply([ev.enter(1, 1)]).hasOutput).toBe(false);
		expect(apply([ev.enter(1, 1), ev.token(2, 'H')]).hasOutput).toBe(true);
	});

	it('takes the terminal event without an id (the no-live-run answer) and only the first one', () => {
		const run = apply([ev.token(1, 'a'), ev.end(null, 'interrupted')]);
		expect(run.outcome).toEqual({ kind: 'end', status: 'interrupted' });
		expect(applyRunEvent(run, ev.error(2, 'AGENT_FAILURE', 'x'))).toBe(run);
	});

	it('takes a terminal event whose id repeats an earlier one (EventSource keeps the last id)', () => {
		const run = apply([ev.token(5, 'a'), ev.end(5, 'completed')]);
		expect(run.outcome).toMatchObject({ kind: 'end', status: 'completed', run: 'run-1' });
	});

	it('records chat-error as an error outcome', () => {
		expect(apply([ev.error(3, 'MODEL_UNREACHABLE', 'Ollama is down')]).outcome).toEqual({
			kind: 'error',
			code: 'MODEL_UNREACHABLE',
			message: 'Ollama is down',
			run: 'run-1'
		});
	});

	it('ignores pings and keeps warnings', () => {
		const run = emptyLiveRun();
		expect(applyRunEvent(run, { event: 'ping', id: null, data: '' })).toBe(run);
		const warned = applyRunEvent(run, { event: 'warning', id: 1, data: { code: 'TOOLS_UNAVAILABLE', message: 'no fetch', servers: ['fetch'] } });
		expect(warned.warnings).toEqual([{ code: 'TOOLS_UNAVAILABLE', message: 'no fetch', servers: ['fetch'] }]);
	});

	it('puts two calls of one step on the same segment', () => {
		const run = apply([ev.enter(1, 1), ev.call(2, 1, 'a', 'x'), ev.call(3, 1, 'b', 'y'), ev.leave(4, 1)]);
		expect(run.items).toHaveLength(1);
		expect(run.items[0]).toMatchObject({ toolCalls: [{ id: 'x' }, { id: 'y' }] });
	});

	it('settling drops the transcript part and keeps the timeline', () => {
		const settled = settledLiveRun(apply(WALK));
		expect(settled.items).toEqual([]);
		expect(settled.timeline).toHaveLength(11);
	});
});
