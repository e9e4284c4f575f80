import http from 'node:http';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConnectionGuard } from '../../../src/lib/server/http/connection-guard';

/** A real HTTP server on loopback, watched by a guard; deadlines far away unless a test sets them. */
async function serve(limits: Partial<ConstructorParameters<typeof ConnectionGuard>[0]>) {
	const guard = new ConnectionGuard({ headersTimeoutMs: 600_000, bodyTimeoutMs: 600_000, maxPerClient: 1000, ...limits });
	guard.start();
	let accepted = 0;
	let ended = 0;
	const waiters: (() => void)[] = [];
	const server = http.createServer((req, res) => {
		req.resume();
		req.on('end', () => res.end('ok'));
	});
	const wake = () => waiters.splice(0).forEach((w) => w());
	// The guard's own close listener was added first (it sees the socket before 'connection'), so
	// by the time this one runs the guard has freed the place.
	server.on('connection', (socket) => {
		accepted++;
		wake();
		socket.once('close', () => {
			ended++;
			wake();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const port = (server.address() as net.AddressInfo).port;
	const until = async (done: () => boolean) => {
		while (!done()) await new Promise<void>((resolve) => waiters.push(resolve));
	};
	return { guard, server, port, acceptedAtLeast: (n: number) => until(() => accepted >= n), endedAtLeast: (n: number) => until(() => ended >= n) };
}

const open = (port: number, from = '127.0.0.1') =>
	new Promise<net.Socket>((resolve) => {
		const s = net.connect({ port, host: '127.0.0.1', localAddress: from }, () => resolve(s));
		s.on('error', () => {});
	});
const closed = (s: net.Socket) => new Promise<void>((resolve) => (s.destroyed ? resolve() : s.once('close', () => resolve())));
const answer = (s: net.Socket, port: number) =>
	new Promise<string>((resolve) => {
		let text = '';
		s.setEncoding('utf8');
		s.on('data', (d: string) => {
			text += d;
			if (text.includes('\r\n\r\nok') || text.endsWith('ok')) resolve(text);
		});
		s.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
	});

describe('connection guard', () => {
	let cleanup: (() => Promise<void>) | undefined;
	afterEach(async () => {
		await cleanup?.();
		cleanup = undefined;
	});

	it('closes a client connection past the cap at once, counting the loopback range as one client, and serves those within it', async () => {
		const { guard, server, port, acceptedAtLeast, endedAtLeast } = await serve({ maxPerClient: 3 });
		const sockets: net.Socket[] = [];
		cleanup = async () => {
			sockets.forEach((s) => s.destroy());
			guard.close();
			await new Promise((r) => server.close(r));
		};
		for (const from of ['127.0.0.1', '127.0.0.2', '127.0.0.3']) sockets.push(await open(port, from));
		await acceptedAtLeast(3);
		const extra = await open(port, '127.0.0.9');
		sockets.push(extra);
		await closed(extra);
		expect(sockets.slice(0, 3).map((s) => s.destroyed)).toEqual([false, false, false]);
		expect(await answer(sockets[0]!, port)).toMatch(/^HTTP\/1\.1 200 /);
		// A connection that ends frees its place.
		sockets[1]!.destroy();
		// The refused connection ended first; this one is the second.
		await endedAtLeast(2);
		const again = await open(port);
		sockets.push(again);
		expect(await answer(again, port)).toMatch(/^HTTP\/1\.1 200 /);
	});

	it('closes a connection whose headers do not arrive in time, and keeps one whose answer is being read', async () => {
		const { guard, server, port } = await serve({ headersTimeoutMs: 200 });
		const slow = await open(port);
		const served = await open(port);
		cleanup = async () => {
			slow.destroy();
			served.destroy();
			guard.close();
			await new Promise((r) => server.close(r));
		};
		slow.write('GET / HTTP/1.1\r\nX-Slow: ');
		expect(await answer(served, port)).toMatch(/^HTTP\/1\.1 200 /);
		await closed(slow);
		expect(slow.destroyed).toBe(true);
	});
});
