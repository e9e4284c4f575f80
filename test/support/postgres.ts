// A real PostgreSQL server for tests and benches: Debian's PostgreSQL 15 in a temporary data
// directory, on a free loopback port, its unix socket in that directory, owned by the `postgres`
// user when we run as root (initdb and postgres refuse to run as root). Stopped and removed by
// stop(), and by an exit hook if the process ends without calling it.

import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migratePostgres } from '../../src/lib/server/postgres/index.js';
import { freePort, tempDir } from './service.js';

export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

const run = promisify(execFile);

export interface PostgresServerOptions {
	/**
	 * Extra server settings (`-c name=value`). Tests default to fsync=off: the machine is shared and
	 * no test power-cycles it; benches pass {} to run with PostgreSQL's durable defaults.
	 */
	settings?: Record<string, string>;
}

const TEST_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export interface PostgresServer {
	readonly host: '127.0.0.1';
	readonly port: number;
	readonly dataDir: string;
	/** A connection string for `database` (default `postgres`) as the superuser `postgres`. */
	url(database?: string): string;
	/** The same, through the server's unix socket instead of loopback TCP. */
	socketUrl(database?: string): string;
	/** Stops the server (fast shutdown: every connection ends) and starts it again on the same port and data. */
	restart(): Promise<void>;
	/** Stops the server (fast shutdown), keeping its data and port for `up()`: an outage a test controls. */
	down(): Promise<void>;
	/** Starts the server `down()` stopped, on the same port and data. */
	up(): Promise<void>;
	/** Stops the server (fast shutdown) and removes its directory; safe to call twice. */
	stop(): Promise<void>;
}

interface Account {
	uid: number;
	gid: number;
}

/** The `postgres` account when we are root, else undefined (we run the server as ourselves). */
function serverAccount(): Account | undefined {
	if (process.getuid?.() !== 0) return undefined;
	const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
	return { uid: id('-u'), gid: id('-g') };
}

export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
	const initdb = path.join(POSTGRES_BIN, 'initdb');
	if (!fs.existsSync(initdb)) {
		throw new Error(`PostgreSQL 15 is not installed (${initdb} is missing): apt-get install -y postgresql`);
	}
	const account = serverAccount();
	const root = tempDir('sophos-pg-');
	const dataDir = path.join(root, 'data');
	if (account) fs.chownSync(root, account.uid, account.gid);
	const as = { ...account, cwd: root, env: { PATH: process.env.PATH, LANG: 'C' } };
	const pgCtl = (...args: string[]) => run(path.join(POSTGRES_BIN, 'pg_ctl'), ['-D', dataDir, ...args], as);
	const port = await freePort();
	let serverOptions = '';
	const startServer = () => pgCtl('-o', serverOptions, '-l', path.join(root, 'server.log'), '-w', '-t', '60', 'start');
	let started = false;
	const stopNow = () => {
		if (started) spawnSync(path.join(POSTGRES_BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop'], as);
		fs.rmSync(root, { recursive: true, force: true });
	};
	process.once('exit', stopNow);
	try {
		// C locale: text sorts bytewise, as SQLite compares checkpoint ids.
		await run(initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync'], as);
		const settings = {
			listen_addresses: '127.0.0.1',
			port: String(port),
			unix_socket_directories: root,
			max_connections: '40',
			shared_buffers: '32MB',
			...(options.settings ?? TEST_SETTINGS)
		};
		serverOptions = Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`).join(' ');
		started = true;
		await startServer();
	} catch (error) {
		const log = fs.existsSync(path.join(root, 'server.log')) ? fs.readFileSync(path.join(root, 'server.log'), 'utf8') : '';
		process.off('exit', stopNow);
		stopNow();
		throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${log}`);
	}
	let stopped: Promise<void> | undefined;
	return {
		host: '127.0.0.1',
		port,
		dataDir,
		url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
		// A host that is a directory (encoded, it starts with %2F) is where pg finds the socket.
		socketUrl: (database = 'postgres') => `postgres://postgres@${encodeURIComponent(root)}:${port}/${database}`,
		async restart() {
			// With its log file, or the server would hold pg_ctl's output open and the call never end.
			await pgCtl('-m', 'fast', '-l', path.join(root, 'server.log'), '-w', '-t', '60', 'restart');
		},
		async down() {
			await pgCtl('-m', 'fast', '-w', '-t', '60', 'stop');
		},
		async up() {
			await startServer();
		},
		stop() {
			stopped ??= (async () => {
				process.off('exit', stopNow);
				try {
					await pgCtl('-m', 'fast', '-w', '-t', '60', 'stop');
				} finally {
					fs.rmSync(root, { recursive: true, force: true });
				}
			})();
			return stopped;
		}
	};
}

export interface TestDatabase {
	readonly name: string;
	readonly url: string;
	/** Drops the database, closing any connection still open to it. */
	drop(): Promise<void>;
}

/** A fresh, empty database on the server whose admin connection string is `adminUrl`. */
export async function createTestDatabase(adminUrl: string, prefix = 'test'): Promise<TestDatabase> {
	const name = `${prefix}_${randomBytes(6).toString('hex')}`;
	await admin(adminUrl, `CREATE DATABASE "${name}"`);
	const url = new URL(adminUrl);
	url.pathname = `/${name}`;
	return {
		name,
		url: url.toString(),
		async drop() {
			// Without FORCE first: PostgreSQL waits for the backends of connections a pool has just
			// closed to exit, where FORCE would kill them and fail those connections' last messages.
			try {
				await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}"`);
			} catch (error) {
				if ((error as { code?: string }).code !== OBJECT_IN_USE) throw error;
				await admin(adminUrl, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
			}
		}
	};
}

export interface MigratedDatabase {
	database: TestDatabase;
	pool: pg.Pool;
	/** A connection of its own, outside the pool (a test's own view of the tables, its own transactions); close() ends it. */
	client(): Promise<pg.Client>;
	/** Ends the clients, the pool and drops the database. */
	close(): Promise<void>;
}

/**
 * A fresh database with Sophos's schema, and a pool on it that pipelines as the service's does
 * (postgres/engine.ts); `pool` adds to or overrides its settings.
 */
export async function migratedTestDatabase(adminUrl: string, prefix: string, pool: pg.PoolConfig = {}): Promise<MigratedDatabase> {
	const database = await createTestDatabase(adminUrl, prefix);
	const opened = new pg.Pool({ connectionString: database.url, max: 4, pipeline: true, ...pool });
	await migratePostgres(opened);
	const clients: pg.Client[] = [];
	return {
		database,
		pool: opened,
		async client() {
			const client = new pg.Client({ connectionString: database.url });
			await client.connect();
			clients.push(client);
			return client;
		},
		async close() {
			await Promise.all([...clients.map((client) => client.end()), opened.end()]);
			await database.drop();
		}
	};
}

/** SQLSTATE 55006: the database still has connections after PostgreSQL's 5 s wait for them. */
const OBJECT_IN_USE = '55006';

async function admin(adminUrl: string, sql: string): Promise<void> {
	const client = new pg.Client({ connectionString: adminUrl });
	await client.connect();
	try {
		await client.query(sql);
	} finally {
		await client.end();
	}
}
