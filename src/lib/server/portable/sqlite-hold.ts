import Database from 'better-sqlite3';
import { PortableError } from './portable-error';

/**
 * Opens the SQLite file for this process alone, or refuses while a service has it open. In WAL
 * mode every connection holds a shared lock on the shared-memory file from its first read until it
 * closes, even when idle, and a connection in `locking_mode = EXCLUSIVE` must take the database
 * file's exclusive lock without that shared memory: it gets SQLITE_BUSY while any other connection
 * is open (tested in test/unit/portable/sqlite-hold.test.ts). Once taken, the lock stays until
 * `close()`, so a service started meanwhile cannot open the file either.
 */
export function holdSqliteFile(file: string): Database.Database {
	const db = new Database(file, { fileMustExist: true, timeout: 0 });
	try {
		db.pragma('locking_mode = EXCLUSIVE');
		db.exec('BEGIN EXCLUSIVE; COMMIT');
	} catch (e) {
		db.close();
		if ((e as { code?: string }).code === 'SQLITE_BUSY') {
			throw new PortableError('IN_USE', `${file} is open in a running Sophos (or another program): stop it first`, { cause: e });
		}
		throw e;
	}
	return db;
}
