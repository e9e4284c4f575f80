import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir, ensurePrivateFile, restrictFile } from '../private-files';
import { migrate } from './migrate';

/**
 * Opens the one connection of the process and brings its schema up to date (migrate.ts; what a
 * migration reports, such as an import of the stock saver's tables, goes to `log`). Called once by
 * the composition root; nothing reopens it later, so a closed database stays closed during shutdown.
 */
export function openDatabase(file: string, log: (line: string) => void = () => {}): Database.Database {
	if (file !== ':memory:') {
		ensurePrivateDir(path.dirname(file));
		// SQLite gives the WAL and shared-memory files it creates the database file's own mode.
		ensurePrivateFile(file);
		restrictFile(`${file}-wal`);
		restrictFile(`${file}-shm`);
	}
	const db = new Database(file);
	// Takes effect only on a new, empty file: lets retention give pruned pages back to the disk with
	// `incremental_vacuum`. An older file keeps reusing freed pages (VACUUM once converts it).
	db.pragma('auto_vacuum = INCREMENTAL');
	db.pragma('journal_mode = WAL');
	db.pragma('foreign_keys = ON');
	// In WAL mode NORMAL loses nothing when the process dies (SIGKILL, a crash): the commit is in the
	// OS's hands. Only a power loss or OS crash can drop the newest commits, in order, never
	// corrupting the file; a thread then reads as of an earlier step, which a resume redoes. The
	// few commits a power cut must not undo are fsync'd one by one (durable-commit.ts).
	db.pragma('synchronous = NORMAL');
	db.pragma('busy_timeout = 5000');
	// Deleted rows are overwritten with zeros, so a deleted conversation's text does not stay
	// readable in free pages of the file (or in the WAL frames that carry those pages).
	db.pragma('secure_delete = ON');
	for (const note of migrate(db).notes) log(note);
	return db;
}

/**
 * After a deletion: copies the WAL into the database file and truncates it, so older frames that
 * still hold the deleted text leave the disk. A reader in the middle of a statement can keep it
 * from finishing; the text then goes with the next checkpoint, and the log says so.
 */
export function checkpointAfterDeletion(db: Database.Database, log: (line: string) => void): void {
	const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
	if (result?.busy) log('Database: the WAL could not be truncated after a deletion; the next checkpoint will do it');
}
