import type Database from 'better-sqlite3';

/**
 * The tables Sophos keeps, on both engines under the same names: what a backup manifest counts and
 * a migration compares. PostgreSQL's run_events and run_cancels are a stream's passing state and
 * are not carried.
 */
export const APP_TABLES = [
	'conversations',
	'runs',
	'tool_calls',
	'queued_messages',
	'tool_approvals',
	'allowed_tools',
	'conversation_branches'
] as const;

export const CHECKPOINT_TABLES = ['lg_threads', 'lg_checkpoints', 'lg_writes', 'lg_logs', 'lg_log_items'] as const;

export function countSqliteTables(db: Database.Database, tables: readonly string[]): Record<string, number> {
	return Object.fromEntries(
		tables.map((table) => [table, (db.prepare(`SELECT count(*) AS n FROM "${table}"`).get() as { n: number }).n])
	);
}
