import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

/** How a connection ended: closed by the server while we were still sending, and what it had said. */
type Ending = { byServer: boolean; answer: string };

/**
 * One connection that sends `head` and then one byte of `trickle` per tick, a bounded number of
 * ticks, never finishing its request; it resolves when the connection closes. If the server never
 * closes it, the loop runs out and `byServer` is false.
 */
function trickle(port: number, head: string, trickleByte: string, ticks = 400, tickMs = 100): Promise<Ending> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		let answer = '';
		let sent = 0;
		let timer: NodeJS.Timeout | undefined;
		socket.setEncoding('utf8');
		socket.on('data', (d: string) => (answer += d));
		socket.on('error', () => {});
		socket.once('connect', () => {
			socket.write(head);
			timer = setInterval(() => {
				if (++sent > ticks) {
					clearInterval(timer);
					socket.destroy();
					resolve({ byServer: false, answer });
				} else if (!socket.destroyed) socket.write(trickleByte);
			}, tickMs);
		});
		socket.once('close', () => {
			clearInterval(timer);
			if (sent <= ticks) resolve({ byServer: true, answer });
		});
	});
}

/**
 * Issue 21, slow clients, against the built service with small deadlines: connections whose
 * headers or body never finish are closed by the server (Node's own defaults would hold them 60 s
 * and 300 s, more than the 40 s each connection here keeps sending), and a chunked body over the
 * cap gets its 413 while it is still being sent.
 */
describe('slow clients are cut off', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	const host = () => `Host: 127.0.0.1:${service.port}\r\n`;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Fine.'));
		service = await Service.start({
			ollamaUrl: ollama.url,
			env: { HEADERS_TIMEOUT_MS: '1000', BODY_TIMEOUT_MS: '1000', MAX_CONNECTIONS_PER_CLIENT: '1000' }
		});
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('closes 200 connections whose headers never end, then answers as usual', async () => {
		const endings = await Promise.all(
			Array.from({ length: 200 }, () => trickle(service.port, `GET /api/healthz HTTP/1.1\r\n${host()}X-Slow: `, 'a'))
		);
		expect(endings.filter((e) => !e.byServer)).toEqual([]);
		expect((await service.fetch('/api/healthz')).status).toBe(200);
	});

	it('closes 100 connections whose bodies never end, and nothing is started', async () => {
		const head = `POST /api/chat HTTP/1.1\r\n${host()}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"message":"`;
		const endings = await Promise.all(Array.from({ length: 100 }, () => trickle(service.port, head, 'a')));
		expect(endings.filter((e) => !e.byServer)).toEqual([]);
		const list = await (await service.fetch('/api/conversations')).json();
		expect(list.conversations).toEqual([]);
	});

	it('answers 413 to a chunked body as soon as it passes the cap, and closes the connection', async () => {
		const head = `POST /api/chat HTTP/1.1\r\n${host()}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
		const over = 1024 * 1024 + 1;
		// The body's first chunk passes the cap; then it goes on a byte at a time and never ends.
		const ending = await trickle(service.port, `${head}${over.toString(16)}\r\n${'a'.repeat(over)}\r\n`, '1\r\na\r\n');
		expect(ending.byServer).toBe(true);
		expect(ending.answer).toMatch(/^HTTP\/1\.1 413 /);
		expect(ending.answer.toLowerCase()).toContain('connection: close');
		expect(ending.answer).toContain('"code":"PAYLOAD_TOO_LARGE"');
	});
});
