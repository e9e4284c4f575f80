// The statements a transaction sends together (postgres/transaction.ts sendTogether): on the
// pool's pipelining connections and on plain ones alike, results in order, a failure that rolls
// the whole transaction back and leaves the connection clean, and prepared statements named once
// per text (postgres/named-statement.ts). How many round trips they take is the bench's to
// measure (bench/postgres-turns.ts prints statements and round trips per turn).

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { named } from '../../src/lib/server/postgres/named-statement.js';
import { inTransaction, sendTogether, transactInOneTrip } from '../../src/lib/server/postgres/transaction.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
const pools: Record<'pipelined' | 'plain', pg.Pool> = {} as never;
beforeAll(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'transaction');
	pools.pipelined = new pg.Pool({ connectionString: database.url, max: 2, pipeline: true });
	pools.plain = new pg.Pool({ connectionString: database.url, max: 2 });
	await pools.plain.query('CREATE TABLE notes (id int PRIMARY KEY, text text NOT NULL)');
});
afterAll(async () => {
	await Promise.all(Object.values(pools).map((pool) => pool.end()));
	await database.drop();
});

const count = async () => Number((await pools.plain.query<{ n: string }>('SELECT count(*) AS n FROM notes')).rows[0]!.n);

describe.each(['pipelined', 'plain'] as const)('statements sent together, %s connections', (kind) => {
	const base = kind === 'pipelined' ? 100 : 200;

	it('answers each statement its own result, in order, literal and parameterised and named alike', async () => {
		const client = await pools[kind].connect();
		try {
			expect(client.pipeline).toBe(kind === 'pipelined');
			const results = await sendTogether(client, [
				'SELECT 1 AS n',
				{ text: 'SELECT $1::int AS n', values: [2] },
				named('test_select', 'SELECT $1::int + 1 AS n', [2]),
				named('test_select', 'SELECT $1::int + 1 AS n', [3])
			]);
			expect(results.map((r) => r.rows[0].n)).toEqual([1, 2, 3, 4]);
		} finally {
			client.release();
		}
	});

	it('commits BEGIN, the statements and COMMIT sent as one', async () => {
		const [inserted] = await transactInOneTrip(pools[kind], [
			named('test_insert', 'INSERT INTO notes (id, text) VALUES ($1, $2) RETURNING id', [base, 'kept'])
		]);
		expect(inserted!.rows).toEqual([{ id: base }]);
		expect((await pools.plain.query('SELECT text FROM notes WHERE id = $1', [base])).rows).toEqual([{ text: 'kept' }]);
	});

	it('a statement that fails rolls back what came before it, throws its own error, and leaves every connection clean', async () => {
		const before = await count();
		const failing = transactInOneTrip(pools[kind], [
			named('test_insert', 'INSERT INTO notes (id, text) VALUES ($1, $2) RETURNING id', [base + 1, 'rolled back']),
			{ text: 'SELECT 1 / $1::int', values: [0] },
			named('test_insert', 'INSERT INTO notes (id, text) VALUES ($1, $2) RETURNING id', [base + 2, 'never'])
		]);
		await expect(failing).rejects.toMatchObject({ code: '22012' });
		expect(await count()).toBe(before);
		// Both connections of the pool: neither was left inside the failed transaction.
		const clients = await Promise.all([pools[kind].connect(), pools[kind].connect()]);
		try {
			for (const client of clients) expect((await client.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
		} finally {
			for (const client of clients) client.release();
		}
	});

	it('inTransaction hands work the results of its opening, and a throw in work rolls the opening back', async () => {
		const opened = await inTransaction(
			pools[kind],
			async (_client, results) => results.map((r) => r.rows[0]),
			{ opening: ['SELECT 7 AS n', named('test_select', 'SELECT $1::int + 1 AS n', [7])] }
		);
		expect(opened).toEqual([{ n: 7 }, { n: 8 }]);
		const before = await count();
		const refused = inTransaction(
			pools[kind],
			async () => {
				throw new Error('refused');
			},
			{ opening: [named('test_insert', 'INSERT INTO notes (id, text) VALUES ($1, $2) RETURNING id', [base + 3, 'rolled back'])], durable: true }
		);
		await expect(refused).rejects.toThrow('refused');
		expect(await count()).toBe(before);
	});
});

describe('a flight on a pipelining connection', () => {
	it('leaves in one write to the socket, however many statements it holds', async () => {
		const client = (await pools.pipelined.connect()) as pg.PoolClient & pg.Client;
		const socket = client.connection.stream as pg.Connection['stream'] & { _write: (...a: unknown[]) => void; _writev?: (...a: unknown[]) => void };
		const writes: string[] = [];
		const [write, writev] = [socket._write, socket._writev];
		socket._write = (...a) => (writes.push('write'), write.apply(socket, a));
		if (writev) socket._writev = (...a) => (writes.push('writev'), writev.apply(socket, a));
		try {
			const results = await sendTogether(client, ['BEGIN', named('test_select', 'SELECT $1::int + 1 AS n', [1]), { text: 'SELECT $1::int AS n', values: [5] }, 'COMMIT']);
			expect(results.map((r) => r.rows[0]?.n)).toEqual([undefined, 2, 5, undefined]);
			expect(writes).toHaveLength(1);
		} finally {
			Object.assign(socket, { _write: write, _writev: writev });
			client.release();
		}
	});
});

describe('durable transactions', () => {
	// The server's own setting off, as a deployment that trades the last commits for speed sets it.
	let lax: pg.Pool;
	beforeAll(() => {
		lax = new pg.Pool({ connectionString: database.url, max: 1, pipeline: true, options: '-c synchronous_commit=off' });
	});
	afterAll(() => lax.end());
	const setting = { text: "SELECT current_setting('synchronous_commit') AS s" };

	it('in one trip, commit waiting for the disk only when durable, and the statements answer as given', async () => {
		const [durable] = await transactInOneTrip(lax, [setting], { durable: true });
		expect(durable!.rows).toEqual([{ s: 'on' }]);
		const [plain] = await transactInOneTrip(lax, [setting]);
		expect(plain!.rows).toEqual([{ s: 'off' }]);
		const [, inserted] = await transactInOneTrip(lax, [setting, named('test_insert', 'INSERT INTO notes (id, text) VALUES ($1, $2) RETURNING id', [300, 'durable'])], {
			durable: true
		});
		expect(inserted!.rows).toEqual([{ id: 300 }]);
		// Back to the server's setting after it, on the same connection.
		expect((await lax.query(setting)).rows).toEqual([{ s: 'off' }]);
	});

	it('inTransaction alike', async () => {
		expect(await inTransaction(lax, async (client) => (await client.query(setting)).rows, { durable: true })).toEqual([{ s: 'on' }]);
		expect(await inTransaction(lax, async (client) => (await client.query(setting)).rows)).toEqual([{ s: 'off' }]);
	});
});

describe('named statements', () => {
	it('one name per text, the same each time it is asked for', () => {
		const a = named('test_names', 'SELECT $1::int AS a', [1]);
		const b = named('test_names', 'SELECT $1::int AS b', [1]);
		expect(named('test_names', 'SELECT $1::int AS a', [2]).name).toBe(a.name);
		expect(b.name).not.toBe(a.name);
	});
});
