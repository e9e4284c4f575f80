import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/lib/server/stream/event-log';
import { formatSseFrame } from '../../../src/lib/server/stream/sse-frame';
import type { RunEvent } from '../../../src/lib/protocol';
import { newLogWork } from '../../../src/lib/server/stream/text-stretch';

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
		// Per round: one reasoning stretch, a trace, one answer stretch; then the terminal event. One
		// stretch more: the one begun past the limit stays beside the one the merge made before it.
		expect(log.size).toBe(3 * 3 + 1 + 1);
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

	it('does work linear in the answer over 1,000,000 tokens: no publish walks the log, no character is copied twice', () => {
		const work = newLogWork();
		const limit = 10_000;
		const log = new EventLog(limit, work);
		const pieces: string[] = [];
		// charsBefore[id]: answer characters published up to event `id`, for the ids kept to check replay.
		const charsBefore = new Map<number, number>();
		let chars = 0;
		let mostVisited = 0;
		for (let i = 0; i < 1_000_000; i++) {
			const text = `w${i % 997} `;
			const visited = work.entriesVisited;
			const id = log.publish(token(text));
			mostVisited = Math.max(mostVisited, work.entriesVisited - visited);
			pieces.push(text);
			chars += text.length;
			if (i % 200_000 === 100_000) log.publish(trace(i));
			if (i % 99_991 === 7) charsBefore.set(id, chars);
		}
		// The entries kept before the limit are merged a few per publish (8 at most), each visited once.
		expect(mostVisited).toBeLessThanOrEqual(8);
		expect(work.entriesVisited).toBeLessThanOrEqual(2 * limit);
		expect(work.charsCopied).toBeLessThanOrEqual(chars);
		// Offsets are copied only while a stretch's first chunk grows (16 up to 4096, per stretch).
		expect(work.offsetsCopied).toBeLessThanOrEqual(log.size * 4096);
		expect(log.size).toBeLessThanOrEqual(12);
		const answer = pieces.join('');
		for (const [id, seen] of charsBefore) expect(textOf(log.follow(id, () => {}).missed)).toBe(answer.slice(seen));
		expect(textOf(log.follow(0, () => {}).missed)).toBe(answer);
	});

	it('replays exactly from any id while the merge is under way', () => {
		const log = new EventLog(100);
		const published: RunEvent[] = [];
		const publish = (e: RunEvent) => (published.push(e), log.publish(e));
		const rest = (id: number) =>
			published
				.slice(id)
				.filter((e) => e.event === 'token')
				.map((e) => e.data)
				.join('');
		for (let i = 0; i < 101; i++) publish(i % 40 === 0 ? trace(i) : token(`a${i};`));
		// Past 100 entries the merge begins, a few entries per publish: it is under way for a while.
		const sizes = [log.size];
		for (let i = 0; i < 14; i++) {
			publish(i === 7 ? trace(-i) : token(`b${i};`));
			sizes.push(log.size);
			for (let id = 0; id <= log.lastId; id++) expect(textOf(log.follow(id, () => {}).missed)).toBe(rest(id));
		}
		expect(sizes[0]).toBeGreaterThan(90);
		expect(sizes).toEqual([...sizes].sort((a, b) => b - a));
		for (let i = 0; i < 20; i++) publish(token(`c${i};`));
		// Merged: traces 0, 40 and 80, each with the stretch after it; the stretch begun past the limit
		// beside the last of them; the trace published during the merge and the stretch after it.
		expect(log.size).toBe(9);
		for (let id = 0; id <= log.lastId; id++) expect(textOf(log.follow(id, () => {}).missed)).toBe(rest(id));
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
