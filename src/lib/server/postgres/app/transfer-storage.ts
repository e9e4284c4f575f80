// A conversation taken out and put back whole (storage/transfer-storage.ts TransferStorage) on PostgreSQL.

import type pg from 'pg';
import { putThreadCheckpoints } from '../../checkpoint/thread-put';
import type { TransferResult, TransferStorage } from '../../storage/transfer-storage';
import {
	TIMESTAMP_COLUMNS,
	TRANSFER_COLUMNS,
	recordsFromRows,
	rowsFromRecords,
	type TransferRows,
	type TransferTable
} from '../../storage/transfer-records';
import { DeltaPostgresSaver } from '../checkpoint/saver.js';
import { inTransaction } from '../transaction.js';
import { isoText } from './iso-text.js';

const OWNER: Record<TransferTable, string> = {
	conversations: 'id',
	conversation_branches: 'conversation_id',
	runs: 'conversation_id',
	tool_calls: 'thread_id',
	tool_approvals: 'thread_id'
};
const ORDER: Record<TransferTable, string> = {
	conversations: 'seq',
	conversation_branches: 'conversation_id',
	runs: 'started_at, seq',
	tool_calls: 'intent_at, tool_call_id',
	tool_approvals: 'seq'
};

/**
 * The saver's puts inside a transaction already open on `client`: each put's own BEGIN and COMMIT
 * become nothing, and its ROLLBACK too, since the error that caused it rolls the whole import back.
 * The statements a put opens with (transaction.ts `opening`) still run.
 */
function withinTransaction(client: pg.PoolClient): pg.Pool {
	const none = { rows: [], rowCount: 0 };
	const run = client.query as (...args: unknown[]) => Promise<unknown>;
	const inner = {
		query: async (text: unknown, ...rest: unknown[]) => {
			if (text === 'BEGIN' || text === 'COMMIT' || text === 'ROLLBACK') return none;
			return run.call(client, text, ...rest);
		},
		release: () => {}
	};
	return { connect: async () => inner, query: inner.query } as unknown as pg.Pool;
}

/** Thrown inside the import's transaction to roll it back, carrying what was taken. */
class Taken {
	constructor(readonly result: TransferResult) {}
}

export function postgresTransferStorage(pool: pg.Pool): TransferStorage {
	const select = (table: TransferTable) =>
		`SELECT ${TRANSFER_COLUMNS[table].map((c) => (TIMESTAMP_COLUMNS.has(c) ? `${isoText(c)} AS ${c}` : c)).join(', ')}
		 FROM ${table} WHERE ${OWNER[table]} = $1 ORDER BY ${ORDER[table]}`;
	return {
		async read(conversationId) {
			const rows = await inTransaction(pool, async (client) => {
				// One snapshot for every table.
				await client.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY');
				const out: Partial<TransferRows> = {};
				for (const table of Object.keys(TRANSFER_COLUMNS) as TransferTable[]) {
					out[table] = (await client.query(select(table), [conversationId])).rows;
				}
				return out as TransferRows;
			});
			return recordsFromRows(rows);
		},

		async create(records, checkpoints) {
			try {
				return await inTransaction(
					pool,
					async (client) => {
						// ON CONFLICT on the key itself: a concurrent import of the same id waits for the
						// other transaction and then conflicts, so the answer holds at commit too.
						const takenRuns: string[] = [];
						const insert = async ({ table, rows }: { table: TransferTable; rows: unknown[][] }) => {
							const columns = TRANSFER_COLUMNS[table];
							const sql = `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(', ')})${
								table === 'conversations' || table === 'runs' ? ' ON CONFLICT (id) DO NOTHING' : ''
							}`;
							for (const row of rows) {
								if ((await client.query(sql, row)).rowCount !== 0) continue;
								if (table === 'conversations') throw new Taken({ status: 'conversation-taken' });
								takenRuns.push(row[0] as string);
							}
						};
						const [conversation, ...rest] = rowsFromRecords(records);
						await insert(conversation!);
						// Without onPut or fence: the heads are the records', and no run writes these.
						await putThreadCheckpoints(new DeltaPostgresSaver(withinTransaction(client)), records.conversation.id, checkpoints);
						for (const table of rest) await insert(table);
						if (takenRuns.length > 0) throw new Taken({ status: 'runs-taken', runIds: takenRuns });
						return { status: 'created' as const };
					},
					{ durable: true }
				);
			} catch (e) {
				if (e instanceof Taken) return e.result;
				throw e;
			}
		}
	};
}
