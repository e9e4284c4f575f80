// The PostgreSQL test harness itself: it starts a real server, hands out databases, and leaves
// nothing behind (no listening port, no directory) once stopped.

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { createTestDatabase, startPostgres } from '../support/postgres.js';

function connectError(port: number): Promise<NodeJS.ErrnoException | undefined> {
	return new Promise((resolve) => {
		const socket = net.connect(port, '127.0.0.1');
		socket.once('connect', () => {
			socket.destroy();
			resolve(undefined);
		});
		socket.once('error', (error) => resolve(error));
	});
}

describe('startPostgres', () => {
	it('runs PostgreSQL 15 on loopback in a temp dir, as postgres when root, and stop() leaves nothing', async () => {
		const server = await startPostgres();
		try {
			expect(fs.existsSync(server.dataDir)).toBe(true);
			if (process.getuid?.() === 0) expect(fs.statSync(server.dataDir).uid).not.toBe(0);
			const client = new pg.Client({ connectionString: server.url() });
			await client.connect();
			const { rows } = await client.query<{ version: string; address: string; listen: string; sockets: string }>(
				`SELECT current_setting('server_version_num') AS version, host(inet_server_addr()) AS address,
				        current_setting('listen_addresses') AS listen, current_setting('unix_socket_directories') AS sockets`
			);
			await client.end();
			expect(rows[0]!.version.startsWith('15')).toBe(true);
			expect(rows[0]!).toMatchObject({ address: '127.0.0.1', listen: '127.0.0.1', sockets: path.dirname(server.dataDir) });
		} finally {
			await server.stop();
		}
		expect((await connectError(server.port))?.code).toBe('ECONNREFUSED');
		expect(fs.existsSync(path.dirname(server.dataDir))).toBe(false);
		await server.stop();
	});

	it('stops and removes the server when the process exits without stop(), e.g. after a failure', async () => {
		const script = [
			`import { startPostgres } from ${JSON.stringify(path.resolve(import.meta.dirname, '../support/postgres.ts'))};`,
			'const server = await startPostgres();',
			'console.log(JSON.stringify({ port: server.port, dataDir: server.dataDir }));',
			'process.exit(1);'
		].join('\n');
		const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
		expect(child.status, child.stderr).toBe(1);
		const { port, dataDir } = JSON.parse(child.stdout.trim()) as { port: number; dataDir: string };
		expect((await connectError(port))?.code).toBe('ECONNREFUSED');
		expect(fs.existsSync(path.dirname(dataDir))).toBe(false);
	});
});

describe('createTestDatabase', () => {
	it('makes an empty database on the run server and drop() removes it, even with a connection open', async () => {
		const adminUrl = inject('postgresUrl');
		const database = await createTestDatabase(adminUrl);
		const client = new pg.Client({ connectionString: database.url });
		client.on('error', () => undefined);
		await client.connect();
		const { rows } = await client.query<{ n: number }>(
			`SELECT COUNT(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'`
		);
		expect(rows[0]!.n).toBe(0);
		await database.drop();
		await expect(client.query('SELECT 1')).rejects.toThrow();
		const admin = new pg.Client({ connectionString: adminUrl });
		await admin.connect();
		const left = await admin.query(`SELECT 1 FROM pg_database WHERE datname = $1`, [database.name]);
		await admin.end();
		expect(left.rowCount).toBe(0);
	});
});
