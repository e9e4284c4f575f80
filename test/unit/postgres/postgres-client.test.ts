// PostgresClient against servers that misbehave on a real loopback socket: every failure to
// connect says by its code or type that the database cannot be reached.

import net from 'node:net';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { DatabaseConnectError, isDatabaseUnavailable } from '../../../src/lib/server/storage/database-errors';
import { PostgresClient } from '../../../src/lib/server/postgres/client';
import { freePort } from '../../support/service';

const servers: net.Server[] = [];
const sockets = new Set<net.Socket>();
afterEach(async () => {
	sockets.forEach((s) => s.destroy());
	for (const s of servers.splice(0)) await new Promise((resolve) => s.close(resolve));
});

/** A TCP server that does `onSocket` with each connection, as no PostgreSQL would. */
async function misbehaving(onSocket: (socket: net.Socket) => void): Promise<number> {
	const server = net.createServer((socket) => {
		sockets.add(socket);
		socket.on('error', () => {});
		onSocket(socket);
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	servers.push(server);
	return (server.address() as net.AddressInfo).port;
}

const config = (port: number) => ({ host: '127.0.0.1', port, user: 'sophos', database: 'sophos' });

describe('PostgresClient', () => {
	it('a server that closes the socket before it answers: a DatabaseConnectError around pg’s own error', async () => {
		const port = await misbehaving((socket) => socket.end());
		const error = await new PostgresClient(config(port)).connect().catch((e: unknown) => e);
		expect(error).toBeInstanceOf(DatabaseConnectError);
		expect((error as Error).cause).toBeInstanceOf(Error);
		expect(isDatabaseUnavailable(error)).toBe(true);
	});

	it('a server that accepts and never answers, behind a pool with a connect timeout: its query is refused as unavailable', async () => {
		const port = await misbehaving(() => {});
		const pool = (Client?: typeof PostgresClient) => new pg.Pool({ ...config(port), connectionTimeoutMillis: 100, ...(Client ? { Client } : {}) });
		const ours = pool(PostgresClient);
		const stock = pool();
		try {
			const [withOurs, withStock] = await Promise.all([ours.query('SELECT 1').catch((e: unknown) => e), stock.query('SELECT 1').catch((e: unknown) => e)]);
			expect(isDatabaseUnavailable(withOurs)).toBe(true);
			// What the stock client gives carries no code to know it by.
			expect(isDatabaseUnavailable(withStock)).toBe(false);
		} finally {
			await Promise.all([ours.end(), stock.end()]);
		}
	});

	it('a failure with a code keeps it: nothing listening (ECONNREFUSED) is not wrapped', async () => {
		const error = await new PostgresClient(config(await freePort())).connect().catch((e: unknown) => e);
		expect(error).not.toBeInstanceOf(DatabaseConnectError);
		expect(error).toMatchObject({ code: 'ECONNREFUSED' });
		expect(isDatabaseUnavailable(error)).toBe(true);
	});

	it('connects through the callback form too, as pg-pool calls it', async () => {
		const port = await misbehaving((socket) => socket.end());
		const error = await new Promise((resolve) => new PostgresClient(config(port)).connect((e: Error) => resolve(e)));
		expect(error).toBeInstanceOf(DatabaseConnectError);
	});
});
