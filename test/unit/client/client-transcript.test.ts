import { describe, expect, it } from 'vitest';
import { applyRunEvent, emptyLiveRun } from '../../../src/lib/client/live-run';
import { buildTranscript } from '../../../src/lib/client/transcript';
import type { MessageDto, StreamEvent } from '../../../src/lib/protocol';
import { ev } from '../../support/client-fakes';

const live = (events: StreamEvent[]) => events.reduce(applyRunEvent, emptyLiveRun());

const DURABLE: MessageDto[] = [
	{ id: 'u1', role: 'user', content: 'hello' },
	{ id: 'a1', role: 'assistant', content: '', reasoning: 'think', toolCalls: [{ id: 'call-a', name: 'memory__read_graph', args: {} }] },
	{ id: 't1', role: 'tool', content: '{}', name: 'memory__read_graph', toolCallId: 'call-a', status: 'success' }
];

describe('buildTranscript', () => {
	it('joins each tool result to its call as one card, and keeps an error status', () => {
		const items = buildTranscript(
			[
				...DURABLE,
				{ id: 'a2', role: 'assistant', content: 'Saving.', toolCalls: [{ id: 'call-b', name: 'memory__add_observations', args: { x: 1 } }] },
				{ id: 't2', role: 'tool', content: 'Entity not found', name: 'memory__add_observations', toolCallId: 'call-b', status: 'error' }
			],
			null
		);
		expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'assistant']);
		expect(items[1]).toMatchObject({ reasoning: 'think', tools: [{ name: 'memory__read_graph', result: { content: '{}', status: 'success' } }] });
		expect(items[2]).toMatchObject({ text: 'Saving.', tools: [{ args: { x: 1 }, result: { content: 'Entity not found', status: 'error' } }] });
	});

	it('leaves out live steps the durable messages already hold (a replay after a reload)', () => {
		// The page loaded the checkpoint (steps 1-2 done) and the stream replays the run from its start.
		const run = live([
			ev.enter(1, 1),
			ev.reasoning(2, 'think'),
			ev.call(3, 1, 'memory__read_graph', 'call-a'),
			ev.leave(4, 1),
			ev.enter(5, 2, 'tools'),
			ev.result(6, 2, 'memory__read_graph', 'call-a', '{}'),
			ev.leave(7, 2, 'tools'),
			ev.enter(8, 3),
			ev.token(9, 'Partial ans')
		]);
		const items = buildTranscript(DURABLE, run);
		expect(items.map((i) => i.kind)).toEqual(['user', 'assistant', 'assistant']);
		expect(items[2]).toMatchObject({ text: 'Partial ans', live: true });
		expect(items.flatMap((i) => (i.kind === 'assistant' ? i.tools : []))).toHaveLength(1);
	});

	it('joins a live result to a durable call', () => {
		const withoutResult = DURABLE.slice(0, 2);
		const items = buildTranscript(withoutResult, live([ev.result(6, 2, 'memory__read_graph', 'call-a', '{"entities":[]}')]));
		expect(items).toHaveLength(2);
		expect(items[1]).toMatchObject({ tools: [{ result: { content: '{"entities":[]}' } }] });
	});

	it('marks only the last live segment as live, and none once the run has ended', () => {
		const events = [ev.enter(1, 1), ev.token(2, 'a'), ev.call(3, 1, 't', 'x'), ev.leave(4, 1), ev.enter(5, 3), ev.token(6, 'b')];
		const items = buildTranscript([], live(events));
		expect(items.map((i) => i.kind === 'assistant' && i.live)).toEqual([false, true]);
		const ended = buildTranscript([], live([...events, ev.end(7)]));
		expect(ended.map((i) => i.kind === 'assistant' && i.live)).toEqual([false, false]);
	});

	it('shows a result whose call is not in view on its own', () => {
		const items = buildTranscript([{ id: 't9', role: 'tool', content: 'orphan', name: 'x', toolCallId: 'nope', status: 'error' }], null);
		expect(items).toEqual([{ kind: 'tool', key: 't9', name: 'x', result: { content: 'orphan', status: 'error' } }]);
	});

	it('gives every item a distinct key even when ids repeat or are empty', () => {
		const items = buildTranscript(
			[
				{ id: '', role: 'user', content: 'a' },
				{ id: '', role: 'user', content: 'b' },
				{ id: 'x', role: 'user', content: 'c' },
				{ id: 'x', role: 'user', content: 'd' }
			],
			null
		);
		expect(new Set(items.map((i) => i.key)).size).toBe(4);
	});
});
