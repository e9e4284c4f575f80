import pg from 'pg';
import { DeltaPostgresSaver, migratePostgres } from '../postgres';
import { describeDatabase } from '../postgres/engine';
import { isoText } from '../postgres/app/iso-text';
import { inTransaction } from '../postgres/transaction';
import type { MigrationSide, TableRows } from './migration-side';
import { PortableError } from './portable-error';

/**
 * Columns PostgreSQL has and the SQLite file has not: `seq` (insertion order, which inserting rows
 * in their order gives again) and a run's `owner` and `lease_until` (a copied running run has no
 * owner, so its lease has ended and the first instance recovers it, as after a crash).
 */
const POSTGRES_ONLY = new Set(['seq', 'owner', 'lease_until']);

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters for the widest table (15 columns). */
const ROWS_PER_INSERT = 500;

/** PostgreSQL at `url` as one end of a migration; its schema brought up to date first, as an instance would. */
export async function postgresSide(url: string): Promise<MigrationSide> {
	const pool = new pg.Pool({ connectionString: url, max: 4 });
	try {
		await migratePostgres(pool);
	} catch (e) {
		await pool.end().catch(() => {});
		// The server's reason without the URL, whose password the message must not carry.
		const code = (e as { code?: string }).code;
		throw new PortableError('CANNOT_OPEN', `Cannot open ${describeDatabase(url)}: ${(e as Error).message}${code ? ` (${code})` : ''}`, { cause: e });
	}
	const columnsOf = async (table: string) => {
		const { rows } = await pool.query<{ column_name: string; data_type: string }>(
			`SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position`,
			[table]
		);
		return rows.filter((r) => !POSTGRES_ONLY.has(r.column_name));
	};
	return {
		where: describeDatabase(url),
		saver: new DeltaPostgresSaver(pool),
		async readRows(tables) {
			const out: TableRows[] = [];
			for (const table of tables) {
				const columns = await columnsOf(table);
				const { rows: ordered } = await pool.query(`SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 AND column_name = 'seq'`, [table]);
				const select = columns.map((c) => (c.data_type.startsWith('timestamp') ? `${isoText(`"${c.column_name}"`)} AS "${c.column_name}"` : `"${c.column_name}"`));
				const { rows } = await pool.query({ text: `SELECT ${select.join(', ')} FROM "${table}" ORDER BY ${ordered.length ? 'seq' : '1'}`, rowMode: 'array' });
				out.push({ table, columns: columns.map((c) => c.column_name), rows });
			}
			return out;
		},
		async writeRows(tables) {
			await inTransaction(
				pool,
				async (client) => {
					for (const { table, columns, rows } of tables) {
						for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
							const batch = rows.slice(start, start + ROWS_PER_INSERT);
							const values = batch.map((_, r) => `(${columns.map((_, c) => `$${r * columns.length + c + 1}`).join(', ')})`);
							await client.query(
								`INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`,
								batch.flat()
							);
						}
					}
				},
				{ durable: true }
			);
		},
		async threadIds() {
			const { rows } = await pool.query<{ thread_id: string }>(`SELECT DISTINCT thread_id FROM lg_threads ORDER BY thread_id`);
			return rows.map((r) => r.thread_id);
		},
		async count(tables) {
			const counts: Record<string, number> = {};
			for (const table of tables) counts[table] = Number((await pool.query(`SELECT count(*) AS n FROM "${table}"`)).rows[0].n);
			return counts;
		},
		async close() {
			await pool.end();
		}
	};
}
