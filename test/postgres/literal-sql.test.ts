// Values written into a statement as literals (postgres/literal-sql.ts) mean what the same values
// sent as pg's parameters mean, on a real server: the claim and the put's write rely on it.

import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { withLiterals, type SqlValue } from '../../src/lib/server/postgres/literal-sql.js';
import { createTestDatabase, type TestDatabase } from '../support/postgres.js';

let database: TestDatabase;
let pool: pg.Pool;

beforeAll(async () => {
	database = await createTestDatabase(inject('postgresUrl'), 'literals');
	pool = new pg.Pool({ connectionString: database.url, max: 2 });
});
afterAll(async () => {
	await pool.end();
	await database.drop();
});

const awkward = ["it's", 'back\\slash', 'a "quote"', '{brace}, comma', 'NULL', '$1 and $2', 'ünïcødé ✓', '', ' spaced '];

describe('withLiterals', () => {
	it('gives what parameters give, for text, numbers, booleans, bytea, arrays of each (empty too) and NULL', async () => {
		const sql = `SELECT $1::text AS t, $2::int AS i, $3 * interval '1 millisecond' AS ms, $4::boolean AS b, $5::bytea AS bytes,
			$6::text[] AS texts, $7::int[] AS ints, $8::bytea[] AS blobs, $9::smallint[] AS none, $10::text AS missing,
			$11::timestamptz AS at, $12::jsonb AS doc`;
		for (const text of awkward) {
			const values: SqlValue[] = [
				text,
				-42,
				10_000,
				true,
				Buffer.from([0, 1, 92, 39, 34, 255]),
				[...awkward, null],
				[1, 2, 3],
				[Buffer.from('x'), Buffer.alloc(0), null],
				[],
				null,
				'2026-01-01T00:00:00.000Z',
				JSON.stringify({ text, nested: ['a\\b', "c'd"] })
			];
			const withParameters = await pool.query(sql, values as unknown[]);
			const written = withLiterals(sql, values);
			const withWritten = await pool.query(written);
			expect(withWritten.rows).toEqual(withParameters.rows);
		}
	});

	it('a placeholder is replaced once: a value holding $n is not read again', () => {
		expect(withLiterals('SELECT $1, $2', ['$2', 'x'])).toBe("SELECT '$2', 'x'");
	});
});
