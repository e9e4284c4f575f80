import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import pg from 'pg';

export const ROOT = path.resolve(import.meta.dirname, '../..');

export async function freePort(): Promise<number> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return port;
}

export function tempDir(prefix = 'sophos-test-'): string {
	return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

/**
 * The engine the service runs on: the `integration-postgres` project sets SOPHOS_TEST_ENGINE so the
 * same tests run with DATABASE_URL on the run's PostgreSQL server (its globalSetup), each data
 * directory with a database of its own, kept across restarts as the SQLite file is.
 */
export const TEST_ENGINE: 'sqlite' | 'postgres' = process.env.SOPHOS_TEST_ENGINE === 'postgres' ? 'postgres' : 'sqlite';

/** The database of `dataDir` on the run's PostgreSQL server, created on first use. */
export async function databaseOf(dataDir: string): Promise<string> {
	// Imported here: benches and scripts use this module outside vitest, on SQLite.
	const { inject } = await import('vitest');
	const admin = inject('postgresUrl');
	const name = `svc_${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`;
	const client = new pg.Client({ connectionString: admin });
	await client.connect();
	try {
		const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
		if (!rowCount) await client.query(`CREATE DATABASE "${name}"`);
	} finally {
		await client.end();
	}
	const url = new URL(admin);
	url.pathname = `/${name}`;
	return url.toString();
}

export type ServiceOptions = {
	/** OLLAMA_HOST; leave it out when `env` points the service at another provider. */
	ollamaUrl?: string;
	/** Survives restarts: the database and memory file live here. */
	dataDir?: string;
	configDir?: string;
	env?: Record<string, string>;
	/** The checkout whose build/ runs (default: this one); the upgrade fixtures run earlier releases. */
	root?: string;
};

/** The built service (build/index.js) as its own process, as a user runs it. */
export class Service {
	output = '';
	private exited: Promise<number | null>;
	private readonly outputWaiters: { pattern: RegExp; resolve: () => void }[] = [];

	private constructor(
		readonly child: ChildProcess,
		readonly url: string,
		readonly options: Required<Pick<ServiceOptions, 'dataDir'>> & ServiceOptions,
		readonly port: number
	) {
		this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
	}

	static async start(options: ServiceOptions, port?: number): Promise<Service> {
		const dataDir = options.dataDir ?? tempDir();
		const p = port ?? (await freePort());
		// One instance per data directory, under a name its restarts keep, as a host name would be.
		const database =
			TEST_ENGINE === 'postgres' && options.env?.DATABASE_URL === undefined
				? { DATABASE_URL: await databaseOf(dataDir), SOPHOS_INSTANCE_ID: `test-${path.basename(dataDir)}` }
				: {};
		const child = spawn(process.execPath, ['build/index.js'], {
			cwd: options.root ?? ROOT,
			env: {
				PATH: process.env.PATH,
				HOME: process.env.HOME,
				HOST: '127.0.0.1',
				PORT: String(p),
				BODY_SIZE_LIMIT: '2M',
				...(options.ollamaUrl ? { OLLAMA_HOST: options.ollamaUrl } : {}),
				DATABASE_PATH: path.join(dataDir, 'sophos.db'),
				MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl'),
				CONFIG_DIR: options.configDir ?? path.join(ROOT, 'config'),
				...database,
				...options.env
			},
			stdio: ['ignore', 'pipe', 'pipe']
		});
		const service = new Service(child, `http://127.0.0.1:${p}`, { ...options, dataDir }, p);
		await new Promise<void>((resolve, reject) => {
			const onData = (chunk: Buffer) => {
				service.append(chunk.toString());
				if (service.output.includes('Listening on')) resolve();
			};
			child.stdout!.on('data', onData);
			child.stderr!.on('data', (c: Buffer) => service.append(c.toString()));
			void service.exited.then((code) => reject(new Error(`service exited (${code}) before listening:\n${service.output}`)));
		});
		return service;
	}

	/** Resolves once the service has printed a line matching `pattern`. */
	waitForOutput(pattern: RegExp): Promise<void> {
		if (pattern.test(this.output)) return Promise.resolve();
		return new Promise((resolve) => this.outputWaiters.push({ pattern, resolve }));
	}

	private append(text: string): void {
		this.output += text;
		for (const w of [...this.outputWaiters]) {
			if (w.pattern.test(this.output)) {
				this.outputWaiters.splice(this.outputWaiters.indexOf(w), 1);
				w.resolve();
			}
		}
	}

	/** Resolves when the process has exited, however it ended. */
	async crashed(): Promise<void> {
		await this.exited;
	}

	/** Starts the service again on the same data directory and port. */
	restart(env: Record<string, string> = {}): Promise<Service> {
		return Service.start({ ...this.options, env: { ...this.options.env, ...env } }, this.port);
	}

	/** Kills the service and its MCP children at once, as a crash would. */
	async kill(): Promise<void> {
		this.child.kill('SIGKILL');
		await this.exited;
	}

	async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
		if (this.child.exitCode === null) this.child.kill(signal);
		return this.exited;
	}

	fetch(pathname: string, init?: RequestInit): Promise<Response> {
		return fetch(this.url + pathname, init);
	}

	post(pathname: string, body: unknown): Promise<Response> {
		return this.fetch(pathname, {
			method: 'POST',
			headers: { 'Content-Type': 'application/json' },
			body: typeof body === 'string' ? body : JSON.stringify(body)
		});
	}
}

/**
 * What a hostile request must leave as it was: the conversation list, the runs of `conversations`
 * and the always-allowed tools, as one string to compare before and after.
 */
export async function serviceState(service: Service, conversations: string[]): Promise<string> {
	const json = async (path: string) => (await service.fetch(path)).json();
	const runs = await Promise.all(conversations.map((c) => json(`/api/conversations/${c}/runs`)));
	return JSON.stringify({ list: await json('/api/conversations'), runs, allowed: await json('/api/allowed-tools') });
}
