import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { EventLoopShare } from '../../../src/lib/server/event-loop-share';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** A body whose chunks are all there at once, as after one large network read. */
function burst(chunks: string[]): ReadableStream<Uint8Array> {
	return new ReadableStream({
		start(controller) {
			for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
			controller.close();
		}
	});
}

async function pieces(body: ReadableStream<Uint8Array>, onPiece?: (piece: string) => void): Promise<string[]> {
	const out: string[] = [];
	const reader = body.getReader();
	for (let read = await reader.read(); !read.done; read = await reader.read()) {
		const text = decoder.decode(read.value);
		out.push(text);
		onPiece?.(text);
	}
	return out;
}

const lines = (n: number, tag = 'l') => Array.from({ length: n }, (_, i) => `{"${tag}":${i}}\n`);

// A turn budget of 0 ms makes every point after the first in a turn wait: deterministic, no timing.
const strict = () => new EventLoopShare(0);

describe('EventLoopShare', () => {
	it('hands on the same bytes, cut after every newline and nowhere else', async () => {
		const text = lines(40).join('') + '{"tail":true}';
		// Chunk boundaries fall inside lines, on newlines and between them.
		const chunks = [text.slice(0, 5), text.slice(5, 8), text.slice(8, 200), text.slice(200, 201), text.slice(201)];
		const out = await pieces(strict().pace(burst(chunks)));
		expect(out.join('')).toBe(text);
		for (const piece of out) expect(piece.indexOf('\n')).toSatisfy((i: number) => i === -1 || i === piece.length - 1);
		expect(out.filter((p) => p.endsWith('\n'))).toHaveLength(40);
	});

	it('hands on a line together with the empty lines after it in the same read, so a server-sent event comes whole', async () => {
		const events = ['data: {"a":1}\n\n', 'data: {"b":2}\r\n\r\n', 'event: x\ndata: {"c":3}\n\n\n'];
		// The last event's empty line comes in a read of its own, and so as a piece of its own.
		const chunks = [events.join('') + 'data: {"d":4}\n', '\n'];
		const out = await pieces(strict().pace(burst(chunks)));
		expect(out).toEqual(['data: {"a":1}\n\n', 'data: {"b":2}\r\n\r\n', 'event: x\n', 'data: {"c":3}\n\n\n', 'data: {"d":4}\n', '\n']);
	});

	it('lets the event loop turn in the middle of a burst that arrived in one read', async () => {
		let turned = false;
		let linesBeforeTurn = 0;
		setImmediate(() => (turned = true));
		await pieces(strict().pace(burst([lines(200).join('')])), (piece) => {
			if (!turned) linesBeforeTurn += piece.split('\n').length - 1;
		});
		expect(turned).toBe(true);
		expect(linesBeforeTurn).toBeLessThan(200);
	});

	it('interleaves concurrent bursts in arrival order instead of finishing one first', async () => {
		const pacer = strict();
		const order: string[] = [];
		await Promise.all([
			pieces(pacer.pace(burst([lines(50, 'a').join('')])), () => order.push('a')),
			pieces(pacer.pace(burst([lines(50, 'b').join('')])), () => order.push('b'))
		]);
		expect(order).toHaveLength(100);
		// Both streams wait in one queue: b is not held back behind all of a's lines.
		expect(order.indexOf('b')).toBeLessThan(5);
		expect(order.slice(0, 40).filter((s) => s === 'b').length).toBeGreaterThanOrEqual(15);
	});

	it('lets a response that got its turn go on through its read while the turn has time, though others wait', async () => {
		// The clock is the test's: 10 ms pass at once, so both responses find the turn full and queue;
		// then it stands still, so the turn that releases the first never fills up.
		let now = 0;
		const clock = vi.spyOn(performance, 'now').mockImplementation(() => now);
		try {
			const share = new EventLoopShare(4);
			expect(share.turn()).toBeUndefined();
			now = 10;
			const order: string[] = [];
			await Promise.all([
				pieces(share.pace(burst([lines(20, 'a').join('')])), () => order.push('a')),
				pieces(share.pace(burst([lines(20, 'b').join('')])), () => order.push('b'))
			]);
			expect(order.join('')).toBe('a'.repeat(20) + 'b'.repeat(20));
		} finally {
			clock.mockRestore();
		}
	});

	it('reads a body as it arrives, though nothing has asked for its pieces yet', async () => {
		let pulled = 0;
		const body = new ReadableStream<Uint8Array>(
			{
				pull(controller) {
					if (pulled === 10) return controller.close();
					controller.enqueue(encoder.encode(lines(1, `c${pulled++}`)[0]!));
				}
			},
			{ highWaterMark: 0 }
		);
		const paced = strict().pace(body);
		await new Promise((resolve) => setImmediate(resolve));
		// A client left holding an unread response backs it up into the socket (see pace).
		expect(pulled).toBe(10);
		expect((await pieces(paced)).join('')).toBe(Array.from({ length: 10 }, (_, i) => lines(1, `c${i}`)[0]).join(''));
	});

	it('spreads a burst of callers over turns of the event loop, first come first served', async () => {
		const share = strict();
		const order: string[] = [];
		let turns = 0;
		const tick = () => {
			turns++;
			if (turns < 20) setImmediate(tick);
		};
		setImmediate(tick);
		await Promise.all(
			Array.from({ length: 5 }, async (_, i) => {
				const wait = share.turn();
				if (wait) await wait;
				order.push(`${i}@${turns}`);
			})
		);
		// The first goes on at once; the others wait, each released in a later turn, in order.
		expect(order[0]).toBe('0@0');
		const released = order.slice(1).map((entry) => entry.split('@'));
		expect(released.map(([i]) => Number(i))).toEqual([1, 2, 3, 4]);
		const atTurn = released.map(([, turn]) => Number(turn));
		expect(atTurn[0]).toBeGreaterThan(0);
		expect([...atTurn].sort((a, b) => a - b)).toEqual(atTurn);
		expect(new Set(atTurn).size).toBe(atTurn.length);
	});

	it('lets a lone caller go on at once while its turn has time left', () => {
		const share = new EventLoopShare(60_000);
		expect(share.turn()).toBeUndefined();
		expect(share.turn()).toBeUndefined();
	});

	it('wraps fetch: status, headers and body of a loopback response arrive unchanged', async () => {
		const body = lines(300).join('');
		const server = http.createServer((req, res) => {
			res.writeHead(req.url === '/missing' ? 404 : 200, { 'content-type': 'application/x-ndjson', 'x-probe': 'yes' });
			res.end(req.url === '/missing' ? '{"error":"model not found"}' : body);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const pacer = strict();
			const ok = await pacer.fetch(`${base}/api/chat`, { method: 'POST', body: '{}' });
			expect(ok.status).toBe(200);
			expect(ok.headers.get('x-probe')).toBe('yes');
			expect(await ok.text()).toBe(body);
			const missing = await pacer.fetch(`${base}/missing`);
			expect(missing.status).toBe(404);
			expect(await missing.json()).toEqual({ error: 'model not found' });
		} finally {
			await new Promise((resolve) => server.close(resolve));
		}
	});

	it('passes an aborted request on as an abort and goes on serving others', async () => {
		const server = http.createServer((_req, res) => {
			res.writeHead(200, { 'content-type': 'application/x-ndjson' });
			res.write(lines(100).join(''));
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
		try {
			const pacer = strict();
			const abort = new AbortController();
			const res = await pacer.fetch(base, { signal: abort.signal });
			const read = pieces(res.body!, (piece) => {
				if (piece.includes('"l":5}')) abort.abort();
			});
			await expect(read).rejects.toThrow(/abort/i);
			// The share goes on serving: a later stream gets all its bytes.
			const later = await pieces(pacer.pace(burst([lines(3, 'next').join('')])));
			expect(later.join('')).toBe(lines(3, 'next').join(''));
		} finally {
			server.closeAllConnections();
			await new Promise((resolve) => server.close(resolve));
		}
	});
});
