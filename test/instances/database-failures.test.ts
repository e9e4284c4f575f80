// PostgreSQL that cannot be used, through the built service as its own process: bad DATABASE_URL
// values and servers that cannot be opened stop the start before the port opens, saying what to
// fix and never the password; a server stopped under a running service and started again costs
// the requests made meanwhile a coded error, the process nothing, and loses nothing committed.

import net from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { freePort, Service } from '../support/service';
import { followRun, tokensOf } from '../support/sse';
import { createTestDatabase, startPostgres, type PostgresServer, type TestDatabase } from '../support/postgres';
import { samples } from '../support/prometheus';

const PASSWORD = 'S3cret-pa55word';

let ollama: ScriptedOllama;
const started: Service[] = [];

beforeAll(async () => {
	ollama = await ScriptedOllama.start(() => ({ content: 'Hello.' }));
});
afterAll(() => ollama.close());
afterEach(async () => {
	for (const s of started.splice(0)) await s.stop();
});

/** Starts the service on `url`, which must fail: returns what it printed. */
async function failedStart(url: string): Promise<string> {
	const outcome = await Service.start({ ollamaUrl: ollama.url, env: { DATABASE_URL: url } }).then(
		(service) => (started.push(service), null),
		(error: Error) => error
	);
	expect(outcome, 'the service started listening').toBeInstanceOf(Error);
	// Service.start says how the process exited before it printed "Listening on".
	expect(outcome!.message).toMatch(/^service exited \([1-9]\d*\) before listening/);
	return outcome!.message;
}

describe('a DATABASE_URL that cannot be used stops the start', () => {
	it.each([
		['not a URL', `not a url but a ${PASSWORD}`],
		['another scheme', `mysql://sophos:${PASSWORD}@127.0.0.1:3306/sophos`],
		['an empty host', `postgres://sophos:${PASSWORD}@/sophos`],
		['a port that is not a number', `postgres://sophos:${PASSWORD}@127.0.0.1:five/sophos`],
		['a bracketed host left open', `postgresql://sophos:${PASSWORD}@[::1/sophos`]
	])('%s: exits non-zero before listening, names DATABASE_URL, never prints the password', async (_name, url) => {
		const output = await failedStart(url);
		expect(output).toContain('DATABASE_URL=(hidden): expected postgres://user:password@host:port/database');
		expect(output).not.toContain(PASSWORD);
	});
});

describe('a PostgreSQL that cannot be opened stops the start', () => {
	const server = () => new URL(inject('postgresUrl'));
	// Accepts connections and never answers: a server hung, or one behind a network that drops packets.
	let silent: net.Server;
	const silentSockets = new Set<net.Socket>();
	beforeAll(async () => {
		silent = net.createServer((socket) => silentSockets.add(socket.on('error', () => {})));
		await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
	});
	afterAll(async () => {
		silentSockets.forEach((s) => s.destroy());
		await new Promise((resolve) => silent.close(resolve));
	});

	it.each([
		[
			'nothing listens on the port',
			async () => ({ at: `127.0.0.1:${await freePort()}/postgres`, user: 'postgres', reason: /: connect ECONNREFUSED 127\.0\.0\.1:\d+/ })
		],
		[
			'a server that never answers (after the 10 s connect timeout)',
			async () => ({
				at: `127.0.0.1:${(silent.address() as net.AddressInfo).port}/postgres`,
				user: 'postgres',
				reason: /: Connection terminated due to connection timeout/
			})
		],
		['a user that does not exist', async () => ({ at: `127.0.0.1:${server().port}/postgres`, user: 'nobody', reason: /: role "nobody" does not exist/ })],
		[
			'a database that does not exist',
			async () => ({ at: `127.0.0.1:${server().port}/sophos_missing`, user: 'postgres', reason: /: database "sophos_missing" does not exist/ })
		]
	])('%s: exits non-zero before listening with the server and its reason, no password', async (_name, target) => {
		const { at, user, reason } = await target();
		const output = await failedStart(`postgres://${user}:${PASSWORD}@${at}`);
		expect(output).toContain(`Cannot open PostgreSQL at ${at}: `);
		expect(output).toMatch(reason);
		expect(output).not.toContain(PASSWORD);
	});
});

describe('PostgreSQL stopped under a running service, then started again', () => {
	// A server of this file's own, so stopping it disturbs no other test.
	let server: PostgresServer;
	let database: TestDatabase;

	beforeAll(async () => {
		server = await startPostgres();
		database = await createTestDatabase(server.url(), 'outage');
	});
	afterAll(() => server?.stop());

	const json = async (res: Response) => ({ status: res.status, body: await res.json() });
	const unavailable = { status: 503, body: { error: { code: 'DATABASE_UNAVAILABLE', message: expect.any(String) } } };
	const settled = { timeout: 60_000, interval: 50 };

	it('answers DATABASE_UNAVAILABLE meanwhile, serves again without a restart, and keeps everything committed', async () => {
		const service = await Service.start({
			ollamaUrl: ollama.url,
			env: { DATABASE_URL: database.url, SOPHOS_INSTANCE_ID: 'outage', RUN_LEASE_MS: '1500' }
		});
		started.push(service);
		const post = async (body: unknown) => json(await service.post('/api/chat', body));
		const read = async (path: string) => json(await service.fetch(path));
		// The conversation whose run is answered during the outage changes on its own once PostgreSQL
		// is back (its lease ends and recovery judges it, asserted below), so the list is compared without it.
		const listWithout = async (id: string) => {
			const list = await read('/api/conversations');
			return { ...list, body: { ...list.body, conversations: list.body.conversations.filter((c: { id: string }) => c.id !== id) } };
		};

		// Committed before the outage: a conversation whose run completed.
		const done = (await post({ message: 'kept from before' })).body.conversation as string;
		expect(tokensOf(await followRun(service.url, done))).toBe('Hello.');
		// Two runs in flight, each held at its model call: one answered during the outage, one after.
		ollama.holdNext = 'during';
		const during = (await post({ message: 'answered while PostgreSQL is away' })).body.conversation as string;
		await ollama.held('during');
		const duringStream = followRun(service.url, during);
		ollama.holdNext = 'after';
		const after = (await post({ message: 'answered once PostgreSQL is back' })).body.conversation as string;
		await ollama.held('after');
		const afterStream = followRun(service.url, after);
		const committed = {
			list: await listWithout(during),
			done: await read(`/api/conversations/${done}`),
			runs: await read(`/api/conversations/${done}/runs`)
		};

		await server.down();
		await vi.waitFor(async () => {
			const readiness = await read('/api/readyz');
			expect(readiness).toMatchObject({ status: 503, body: { status: 'error', checks: { database: { status: 'error' } } } });
			expect(readiness.body.message).toMatch(/^Database: /);
		}, settled);
		expect(await read('/api/conversations')).toEqual(unavailable);
		expect(await read(`/api/conversations/${done}`)).toEqual(unavailable);
		expect(await post({ message: 'a new conversation while PostgreSQL is away' })).toEqual(unavailable);
		expect(await post({ conversation: done, message: 'more while PostgreSQL is away' })).toEqual(unavailable);
		// A stream with no run of this process to follow needs the database: its one event says why.
		expect(await followRun(service.url, done)).toEqual([
			{ event: 'chat-error', data: { code: 'DATABASE_UNAVAILABLE', message: unavailable.body.error.message } }
		]);
		// The heartbeat fails, says so, and goes on.
		await service.waitForOutput(/Lease heartbeat failed, the database cannot be reached \(connect ECONNREFUSED [^)]+\); retrying/);
		// Its metrics are still scraped: the failed heartbeats counted, the database's own figures not known.
		const metrics = await service.fetch('/api/metrics');
		expect(metrics.status).toBe(200);
		const text = await metrics.text();
		expect(samples(text, 'sophos_lease_renewals_failed_total')['sophos_lease_renewals_failed_total']).toBeGreaterThanOrEqual(1);
		expect(samples(text, 'sophos_waiting_runs')).toEqual({ sophos_waiting_runs: NaN });
		expect(samples(text, 'sophos_queued_messages')).toEqual({ sophos_queued_messages: NaN });

		// Its step cannot be kept, nor its outcome: the stream says so, since the database cannot.
		ollama.release('during');
		expect((await duringStream).at(-1)).toEqual({
			id: expect.any(String),
			event: 'chat-error',
			data: { code: 'OUTCOME_NOT_RECORDED', message: expect.any(String), conversation: during, run: expect.any(String) }
		});
		expect(service.child.exitCode).toBeNull();

		await server.up();
		await vi.waitFor(async () => expect((await read('/api/readyz')).status).toBe(200), settled);
		await service.waitForOutput(/Notify bus: reconnected/);
		expect({
			list: await listWithout(during),
			done: await read(`/api/conversations/${done}`),
			runs: await read(`/api/conversations/${done}/runs`)
		}).toEqual(committed);

		// The run held through the outage goes on and records its outcome.
		ollama.release('after');
		const afterEvents = await afterStream;
		expect(tokensOf(afterEvents)).toBe('Hello.');
		expect(afterEvents.at(-1)).toMatchObject({ event: 'end', data: { conversation: after, status: 'completed' } });
		expect((await read(`/api/conversations/${after}/runs`)).body.runs.map((r: { status: string }) => r.status)).toEqual(['completed']);

		// The run whose outcome was not recorded is no longer renewed: its lease ends and recovery judges it.
		await vi.waitFor(
			async () =>
				expect((await read(`/api/conversations/${during}/runs`)).body.runs).toEqual([
					expect.objectContaining({ status: 'interrupted', error: expect.objectContaining({ code: 'PROCESS_EXITED' }) })
				]),
			settled
		);
		// And the same process takes new work on it.
		const next = await post({ conversation: during, message: 'after the outage' });
		expect(next.status).toBe(200);
		expect(tokensOf(await followRun(service.url, during))).toBe('Hello.');
	});
});
