import type Database from 'better-sqlite3';

/**
 * Runs `fn` in a transaction whose commit is fsync'd before it returns: `synchronous = FULL` for
 * this one commit, on a connection that otherwise runs `synchronous = NORMAL` (see database.ts).
 * For the writes a power cut must not undo: a tool call's intent before the request goes out (or a
 * non-idempotent call could be made twice) and a deletion (or deleted data could come back).
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
