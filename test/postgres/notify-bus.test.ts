// The notify bus on a real PostgreSQL: two buses on one database stand in for two instances.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { NotifyBus, notify } from '../../src/lib/server/postgres/notify-bus.js';
import { createTestDatabase, startPostgres, type TestDatabase } from '../support/postgres.js';
import { Mailbox } from '../support/mailbox.js';

let database: TestDatabase;
let pool: pg.Pool;
const buses: NotifyBus[] = [];

beforeAll(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'bus');
	pool = new pg.Pool({ connectionString: database.url, max: 3 });
});

afterAll(async () => {
	await Promise.all(buses.map((bus) => bus.close()));
	await pool.end();
	await database.drop();
});

async function startBus(log: (message: string) => void = () => {}): Promise<NotifyBus> {
	const bus = new NotifyBus({ client: { connectionString: database.url, application_name: 'notify-bus' }, log, reconnectDelayMs: { first: 10, last: 50 } });
	buses.push(bus);
	await bus.start();
	return bus;
}

/** A listener that posts what it is told into a mailbox, tagged. */
function listener(box: Mailbox<string>, tag: string) {
	return { notified: () => box.post(`${tag} notified`), reconnected: () => box.post(`${tag} reconnected`) };
}

describe('NotifyBus', () => {
	it('hands a NOTIFY from another instance to the subscribers of its channel and key only, at commit, in order', async () => {
		const [a, b] = [await startBus(), await startBus()];
		const box = new Mailbox<string>();
		b.subscribe('sophos_run_events', 'run-1', listener(box, 'b events run-1'));
		b.subscribe('sophos_run_cancel', 'run-1', listener(box, 'b cancel run-1'));
		b.subscribe('sophos_run_events', 'run-2', listener(box, 'b events run-2'));
		a.subscribe('sophos_run_events', 'run-1', listener(box, 'a events run-1'));

		const client = await pool.connect();
		try {
			await client.query('BEGIN');
			await notify(client, 'sophos_run_events', 'run-1');
			await client.query('ROLLBACK');
			await client.query('BEGIN');
			await notify(client, 'sophos_run_cancel', 'run-1');
			await notify(client, 'sophos_run_events', 'run-2');
			await client.query('COMMIT');
		} finally {
			client.release();
		}
		await notify(pool, 'sophos_run_events', 'run-1');
		const seen = [await box.next(), await box.next(), await box.next(), await box.next()];
		expect(seen.filter((s) => s.startsWith('b'))).toEqual(['b cancel run-1 notified', 'b events run-2 notified', 'b events run-1 notified']);
		expect(seen.filter((s) => s.startsWith('a'))).toEqual(['a events run-1 notified']);
		expect(box.pending()).toEqual([]);
	});

	it('stops telling a listener once it unsubscribes', async () => {
		const bus = await startBus();
		const box = new Mailbox<string>();
		const unsubscribe = bus.subscribe('sophos_run_events', 'gone', listener(box, 'gone'));
		bus.subscribe('sophos_run_events', 'kept', listener(box, 'kept'));
		unsubscribe();
		await notify(pool, 'sophos_run_events', 'gone');
		await notify(pool, 'sophos_run_events', 'kept');
		expect(await box.next()).toBe('kept notified');
		expect(box.pending()).toEqual([]);
	});

	it('refuses a payload PostgreSQL would refuse, naming the channel', async () => {
		await expect(notify(pool, 'sophos_run_cancel', 'x'.repeat(8000))).rejects.toThrow(/under 8000 bytes \(sophos_run_cancel\)/);
	});

	it('reconnects after its backend is terminated and while connections are refused, then tells every listener', async () => {
		const logs = new Mailbox<string>();
		const bus = await startBus((message) => logs.post(message));
		const box = new Mailbox<string>();
		bus.subscribe('sophos_run_events', 'run-3', listener(box, 'run-3'));
		bus.subscribe('sophos_run_cancel', 'run-3', { notified: () => box.post('cancel run-3'), reconnected: () => { throw new Error('listener broke'); } });

		// A PostgreSQL that is down refuses connections, as a database that takes none does.
		const admin = new pg.Client({ connectionString: inject('postgresUrl') });
		await admin.connect();
		try {
			await admin.query(`ALTER DATABASE "${database.name}" WITH ALLOW_CONNECTIONS false`);
			await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'notify-bus' AND datname = $1`, [database.name]);
			expect(await logs.nextMatching(/reconnect failed/)).toMatch(/trying again in \d+ ms/);
			expect(bus.isListening).toBe(false);
			await admin.query(`ALTER DATABASE "${database.name}" WITH ALLOW_CONNECTIONS true`);
		} finally {
			await admin.end();
		}
		expect(await box.next()).toBe('run-3 reconnected');
		expect(await logs.nextMatching(/listener failed on reconnected \(listener broke\)/)).toBeTruthy();
		expect(bus.isListening).toBe(true);
		await notify(pool, 'sophos_run_cancel', 'run-3');
		expect(await box.next()).toBe('cancel run-3');
	});

	it('reconnects after PostgreSQL itself restarts', async () => {
		const server = await startPostgres();
		const logs = new Mailbox<string>();
		const bus = new NotifyBus({ client: { connectionString: server.url() }, log: (m) => logs.post(m), reconnectDelayMs: { first: 10, last: 50 } });
		try {
			await bus.start();
			const box = new Mailbox<string>();
			bus.subscribe('sophos_run_cancel', 'run-4', listener(box, 'run-4'));
			await server.restart();
			expect(await box.next()).toBe('run-4 reconnected');
			expect(await logs.nextMatching(/connection lost/)).toBeTruthy();
			const client = new pg.Client({ connectionString: server.url() });
			await client.connect();
			await notify(client, 'sophos_run_cancel', 'run-4');
			await client.end();
			expect(await box.next()).toBe('run-4 notified');
		} finally {
			await bus.close();
			await server.stop();
		}
	});

	it('starts once, and close completes, twice, with no reconnect after it', async () => {
		const logs = new Mailbox<string>();
		const bus = await startBus((message) => logs.post(message));
		await expect(bus.start()).rejects.toThrow(/already been started/);
		await bus.close();
		await bus.close();
		expect(bus.isListening).toBe(false);
		expect(logs.pending()).toEqual([]);
	});

	it('rejects start when PostgreSQL cannot be reached', async () => {
		const bus = new NotifyBus({ client: { connectionString: 'postgres://postgres@127.0.0.1:1/none' }, log: () => {} });
		await expect(bus.start()).rejects.toThrow(/ECONNREFUSED/);
		await expect(bus.start()).rejects.toThrow(/already been started/);
	});
});
