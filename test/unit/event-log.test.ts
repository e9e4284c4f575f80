import { describe, expect, it } from 'vitest';
import { EventLog } from '../../src/lib/server/stream/event-log';
import { formatSseFrame } from '../../src/lib/server/stream/sse-frame';
import type { RunEvent } from '../../src/lib/protocol';

const token = (data: string): RunEvent => ({ event: 'token', data });
const trace = (step: number): RunEvent => ({ event: 'trace', data: { step, name: 'x', node: 'agent', event: 'enter' } });
const end: RunEvent = { event: 'end', data: { conversation: 'c', run: 'r', status: 'completed' } };

function textOf(frames: string[]): string {
	return frames
		.map((f) => /event: token\ndata: (.*)\n/.exec(f))
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
