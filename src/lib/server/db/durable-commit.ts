import type Database from 'better-sqlite3';

/**
 * Runs `fn` in a transaction whose commit is fsync'd before it returns: `synchronous = FULL` for
 * this one commit, on a connection that otherwise runs `synchronous = NORMAL` (see database.ts).
 * For the writes that something outside the process acts on next: a run or a queued message a
 * client has been told about, a tool call's intent before the request goes out, a deletion.
 *
 * Called inside another transaction it simply joins it, because SQLite reads the setting when a
 * transaction begins: the outermost transaction must then be a durable one itself.
 */
export function commitDurably<T>(db: Database.Database, fn: () => T): T {
	if (db.inTransaction) return fn();
	db.pragma('synchronous = FULL');
	try {
		return db.transaction(fn)();
	} finally {
		db.pragma('synchronous = NORMAL');
	}
}
