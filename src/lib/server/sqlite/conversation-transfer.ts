// A conversation taken out and put back whole (storage/transfer-storage.ts TransferStorage) on the SQLite file.

import Database from 'better-sqlite3';
import { putThreadCheckpoints } from '../checkpoint/thread-put';
import type { TransferStorage } from '../storage/transfer-storage';
import { TRANSFER_COLUMNS, recordsFromRows, rowsFromRecords, type TransferRows, type TransferTable } from '../storage/transfer-records';
import { DeltaSqliteSaver } from './checkpoint';

/** The column naming each table's conversation, and the order its rows were written in. */
const OWNER: Record<TransferTable, string> = {
	conversations: 'id',
	conversation_branches: 'conversation_id',
	runs: 'conversation_id',
	tool_calls: 'thread_id',
	tool_approvals: 'thread_id'
};
const ORDER: Record<TransferTable, string> = {
	conversations: 'rowid',
	conversation_branches: 'rowid',
	runs: 'started_at, rowid',
	tool_calls: 'rowid',
	tool_approvals: 'rowid'
};

/**
 * `db`: the service's connection to a database file. `create` works on a connection of its own to
 * the same file, in one `BEGIN IMMEDIATE` transaction: the checkpoint puts are asynchronous, and
 * on the shared connection whatever other requests wrote between them would join the transaction
 * (and roll back with it). The service's writes wait for it meanwhile (busy_timeout), as they wait
 * for any other writer.
 */
export function sqliteTransferStorage(db: Database.Database): TransferStorage {
	const selects = Object.fromEntries(
		(Object.keys(TRANSFER_COLUMNS) as TransferTable[]).map((table) => [
			table,
			db.prepare(`SELECT ${TRANSFER_COLUMNS[table].join(', ')} FROM ${table} WHERE ${OWNER[table]} = ? ORDER BY ${ORDER[table]}`)
		])
	) as Record<TransferTable, Database.Statement<[string], Record<string, unknown>>>;
	return {
		async read(conversationId) {
			const rows = db.transaction(
				() =>
					Object.fromEntries(
						(Object.keys(TRANSFER_COLUMNS) as TransferTable[]).map((table) => [table, selects[table].all(conversationId)])
					) as TransferRows
			)();
			return recordsFromRows(rows);
		},

		async create(records, checkpoints) {
			if (db.memory) throw new Error('conversation transfer needs a database file, not :memory:');
			const own = new Database(db.name, { fileMustExist: true });
			try {
				own.pragma('foreign_keys = ON');
				own.pragma('busy_timeout = 5000');
				// A new conversation is a write a power cut must not undo once it is answered; SQLite reads
				// the setting when the transaction begins (durable-commit.ts).
				own.pragma('synchronous = FULL');
				own.exec('BEGIN IMMEDIATE');
				try {
					if (own.prepare('SELECT 1 FROM conversations WHERE id = ?').get(records.conversation.id)) {
						own.exec('ROLLBACK');
						return { status: 'conversation-taken' };
					}
					// Ids that are another conversation's, judged by the key itself: a run row that
					// conflicts on its id is skipped, not an error, and every such id is collected.
					const takenRuns: string[] = [];
					const insert = ({ table, rows }: { table: TransferTable; rows: unknown[][] }) => {
						const columns = TRANSFER_COLUMNS[table];
						const statement = own.prepare(
							`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})${
								table === 'runs' ? ' ON CONFLICT (id) DO NOTHING' : ''
							}`
						);
						for (const row of rows) {
							if (statement.run(...row).changes === 0) takenRuns.push(row[0] as string);
						}
					};
					const [conversation, ...rest] = rowsFromRecords(records);
					insert(conversation!);
					// Without onPut: the heads are the records', not the puts'.
					await putThreadCheckpoints(new DeltaSqliteSaver(own), records.conversation.id, checkpoints);
					rest.forEach(insert);
					if (takenRuns.length > 0) {
						own.exec('ROLLBACK');
						return { status: 'runs-taken', runIds: takenRuns };
					}
					own.exec('COMMIT');
					return { status: 'created' };
				} catch (e) {
					if (own.inTransaction) own.exec('ROLLBACK');
					throw e;
				}
			} finally {
				own.close();
			}
		}
	};
}
