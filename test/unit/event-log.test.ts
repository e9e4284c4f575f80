import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/lib/server/stream/event-log';
import { formatSseFrame } from '../../src/lib/server/stream/sse-frame';
import type { RunEvent } from '../../src/lib/server/stream/run-events';
import { newLogWork } from '../../src/lib/server/stream/text-stretch';

const token = (data: string): RunEvent => ({ event: 'token', data });
const reasoning = (data: string): RunEvent => ({ event: 'reasoning', data });
const trace = (step: number): RunEvent => ({ event: 'trace', data: { step, name: 'x', node: 'agent', event: 'enter' } });
const end: RunEvent = { event: 'end', data: { conversation: 'c', run: 'r', status: 'completed' } };

function textOf(frames: string[], kind = 'token'): string {
	return frames
		.map((f) => new RegExp(`event: ${kind}\ndata: (.*)\n`).exec(f))
		.filter((m): m is RegExpExecArray => !!m)
		.map((m) => JSON.parse(m[1]!) as string)
		.join('');
}

describe('EventLog', () => {
	it('numbers events from 1 and frames them exactly', () => {
		const log = new EventLog(100);
		expect(log.publish(token('a'))).toBe(1);
		expect(log.publish(end)).toBe(2);
		const { missed } = log.follow(0, () => {});
		expect(missed).toEqual([
			'id: 1\nevent: token\ndata: "a"\n\n',
			'id: 2\nevent: end\ndata: {"conversation":"c","run":"r","status":"completed"}\n\n'
		]);
	});

	it('replays after Last-Event-ID and then delivers live events only once', () => {
		const log = new EventLog(100);
		for (const t of ['a', 'b', 'c']) log.publish(token(t));
		const live: number[] = [];
		const { missed } = log.follow(1, (_f, _e, id) => live.push(id));
		expect(textOf(missed)).toBe('bc');
		log.publish(token('d'));
		expect(live).toEqual([4]);
	});

	it('refuses to publish after the terminal event', () => {
		const log = new EventLog(100);
		log.publish(end);
		expect(() => log.publish(token('late'))).toThrow();
	});

	it('merges tokens past the limit without losing or repeating text from any id', () => {
		const log = new EventLog(100);
		const pieces = Array.from({ length: 1000 }, (_, i) => `t${i};`);
		// textAfter[id]: how many pieces a reader has seen once it has seen event `id`.
		const textAfter = [0];
		const publish = (e: RunEvent) => {
			log.publish(e);
			textAfter.push(textAfter.at(-1)! + (e.event === 'token' ? 1 : 0));
		};
		publish(trace(1));
		pieces.forEach((p, i) => {
			publish(token(p));
			if (i % 250 === 0) publish(trace(i));
		});
		expect(log.size).toBeLessThanOrEqual(101);
		for (let id = 0; id <= log.lastId; id++) {
			expect(textOf(log.follow(id, () => {}).missed)).toBe(pieces.slice(textAfter[id]).join(''));
		}
	});

	it('keeps merging linear when non-text events alone pass the limit', () => {
		const log = new EventLog(100);
		for (let i = 0; i < 5000; i++) log.publish(trace(i));
		expect(log.size).toBe(5000);
		expect(log.follow(4990, () => {}).missed).toHaveLength(10);
	});

	it('merges reasoning and answer text apart, each replayable from any id', () => {
		const log = new EventLog(100);
		const published: RunEvent[] = [];
		const publish = (e: RunEvent) => (published.push(e), log.publish(e));
		for (let round = 0; round < 3; round++) {
			for (let i = 0; i < 150; i++) publish(reasoning(`r${round}.${i};`));
			publish(trace(round));
			for (let i = 0; i < 150; i++) publish(token(`a${round}.${i};`));
		}
		publish(end);
		// Per round: one reasoning stretch, a trace, one answer stretch; then the terminal event.
		expect(log.size).toBe(3 * 3 + 1);
		const rest = (id: number, kind: string) =>
			published
				.slice(id)
				.filter((e) => e.event === kind)
				.map((e) => e.data)
				.join('');
		for (let id = 0; id <= log.lastId; id++) {
			const { missed } = log.follow(id, () => {});
			expect(textOf(missed, 'reasoning')).toBe(rest(id, 'reasoning'));
			expect(textOf(missed)).toBe(rest(id, 'token'));
			const ids = missed.map((f) => Number(/^id: (\d+)/.exec(f)![1]));
			expect(ids).toEqual([...ids].sort((a, b) => a - b));
			expect(ids.every((x) => x > id)).toBe(true);
		}
	});

	it('does work linear in the answer over 1,000,000 tokens: one pass over the log, each character copied at most once', () => {
		const work = newLogWork();
		const limit = 10_000;
		const log = new EventLog(limit, work);
		const pieces: string[] = [];
		// charsBefore[id]: answer characters published before event `id + 1`, for ids kept to check replay.
		const charsBefore = new Map<number, number>();
		let chars = 0;
		let publishesThatVisited = 0;
		let mostVisited = 0;
		for (let i = 0; i < 1_000_000; i++) {
			const text = `w${i % 997} `;
			const before = work.entriesVisited;
			const id = log.publish(token(text));
			pieces.push(text);
			chars += text.length;
			const visited = work.entriesVisited - before;
			if (visited > 0) publishesThatVisited++;
			mostVisited = Math.max(mostVisited, visited);
			if (i % 200_000 === 100_000) log.publish(trace(i));
			if (i % 99_991 === 7) charsBefore.set(id, chars);
		}
		// The one merge, when the log first passed its limit; no publish after it walks the log.
		expect(publishesThatVisited).toBe(1);
		expect(mostVisited).toBe(limit + 1);
		expect(work.charsCopied).toBeLessThanOrEqual(chars);
		// Offsets are copied only while a stretch's first chunk grows (16 up to 4096, per stretch).
		expect(work.offsetsCopied).toBeLessThanOrEqual(log.size * 4096);
		expect(log.size).toBe(11);
		const answer = pieces.join('');
		for (const [id, seen] of charsBefore) expect(textOf(log.follow(id, () => {}).missed)).toBe(answer.slice(seen));
		expect(textOf(log.follow(0, () => {}).missed)).toBe(answer);
	});

	it('drops a subscriber that throws and keeps the others', () => {
		const log = new EventLog(100);
		const got: number[] = [];
		log.follow(0, () => {
			throw new Error('broken');
		});
		log.follow(0, (_f, _e, id) => got.push(id));
		log.publish(token('a'));
		log.publish(token('b'));
		expect(got).toEqual([1, 2]);
	});

	it('formats frames with checked names and ids', () => {
		expect(formatSseFrame('ping', '')).toBe('event: ping\ndata: ""\n\n');
		expect(formatSseFrame('token', 'a\nb\r\n', 7)).toBe('id: 7\nevent: token\ndata: "a\\nb\\r\\n"\n\n');
		expect(() => formatSseFrame('bad\nevent: x', 1)).toThrow();
		expect(() => formatSseFrame('token', 1, 1.5)).toThrow();
	});
});
