import { describe, expect, it } from 'vitest';
import { EventLog } from '../../../src/lib/server/stream/event-log';
import type { RunEvent } from '../../../src/lib/protocol';
import { liveEventResponse } from '../../../src/lib/server/stream/sse-response';
import { SlowReaderError } from '../../../src/lib/server/stream/sse-writer';

const token = (data: string): RunEvent => ({ event: 'token', data });
const end: RunEvent = { event: 'end', data: { conversation: 'c', run: 'r', status: 'completed' } };
const frame = (id: number, data: string) => `id: ${id}\nevent: token\ndata: "${data}"\n\n`;
/** Frames are written at the end of the turn of the event loop they were published in. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const decoder = new TextDecoder();

function open(log: EventLog, lastEventId: number, limit: number) {
	const drops: SlowReaderError[] = [];
	const res = liveEventResponse(log, lastEventId, new AbortController().signal, {
		maxFollowers: 10,
		backlogLimitBytes: limit,
		onDrop: (e) => drops.push(e)
	});
	const reader = res.body!.getReader();
	const read = async () => {
		const { done, value } = await reader.read();
		return done ? null : decoder.decode(value);
	};
	const rest = async () => {
		let text = '';
		for (let chunk = await read(); chunk !== null; chunk = await read()) text += chunk;
		return text;
	};
	return { drops, read, rest };
}

describe('live SSE responses', () => {
	it('write the frames of one turn of the event loop as one chunk, each with its own id', async () => {
		const log = new EventLog(100);
		const reader = open(log, 0, 1 << 20);
		expect(await reader.read()).toBe('retry: 1000\n\n');
		log.publish(token('a'));
		log.publish(token('b'));
		log.publish(token('c'));
		expect(await reader.read()).toBe(frame(1, 'a') + frame(2, 'b') + frame(3, 'c'));
		log.publish(token('d'));
		log.publish(end);
		expect(await reader.read()).toBe(frame(4, 'd') + 'id: 5\nevent: end\ndata: {"conversation":"c","run":"r","status":"completed"}\n\n');
		expect(await reader.read()).toBeNull();
	});

	it('drop a reader that stops reading past the limit; it reconnects after its last id and misses nothing', async () => {
		const log = new EventLog(100);
		const text = (i: number) => `${String(i).padStart(3, '0')}${'x'.repeat(97)}`;
		const stalled = open(log, 0, 1000);
		await stalled.read();
		for (let i = 1; i <= 3; i++) log.publish(token(text(i)));
		expect(await stalled.read()).toBe(frame(1, text(1)) + frame(2, text(2)) + frame(3, text(3)));
		// Now it reads no more: 5 frames of about 130 bytes a turn wait unread, over 1000 after two turns.
		let id = 3;
		for (const turn of [1, 2]) {
			for (let i = 0; i < 5; i++) log.publish(token(text(++id)));
			await nextTurn();
			expect(stalled.drops).toHaveLength(turn === 1 ? 0 : 1);
		}
		expect(stalled.drops[0]).toMatchObject({ unreadBytes: [4, 5, 6, 7, 8, 9, 10, 11, 12, 13].reduce((n, i) => n + frame(i, text(i)).length, 0), limitBytes: 1000 });
		await expect(stalled.read()).rejects.toBeInstanceOf(SlowReaderError);
		log.publish(token(text(++id)));

		const again = open(log, 3, 1000);
		log.publish(end);
		const rest = await again.rest();
		const expected = Array.from({ length: id - 3 }, (_, i) => frame(i + 4, text(i + 4))).join('');
		expect(rest).toBe(`retry: 1000\n\n${expected}id: ${id + 1}\nevent: end\ndata: {"conversation":"c","run":"r","status":"completed"}\n\n`);
		expect(again.drops).toEqual([]);
	});

	it('never count the replay a reader asked for against it, only live frames queued behind it', async () => {
		const log = new EventLog(1000);
		for (let i = 0; i < 200; i++) log.publish(token('r'.repeat(100)));
		const reader = open(log, 0, 1000);
		// 25 KB of replay unread, and 5 live frames (about 650 bytes) behind it: within the limit.
		for (let i = 0; i < 5; i++) log.publish(token('l'.repeat(100)));
		await nextTurn();
		expect(reader.drops).toEqual([]);
		const replay = await reader.read();
		expect(replay!.match(/event: token/g)).toHaveLength(200);
		expect(await reader.read()).toMatch(/^(id: \d+\nevent: token\ndata: "l{100}"\n\n){5}$/);
		// Once the replay is read, the reader's allowance is the limit alone.
		for (let i = 0; i < 9; i++) log.publish(token('l'.repeat(100)));
		await nextTurn();
		expect(reader.drops).toHaveLength(1);
	});
});
