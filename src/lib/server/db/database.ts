import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from './migrations';

/**
 * Opens the one connection of the process and brings its schema up to date. Called once by the
 * composition root; nothing reopens it later, so a closed database stays closed during shutdown.
 */
export function openDatabase(file: string): Database.Database {
	if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true });
	const db = new Database(file);
	// Takes effect only on a new, empty file: lets retention give pruned pages back to the disk with
	// `incremental_vacuum`. An older file keeps reusing freed pages (VACUUM once converts it).
	db.pragma('auto_vacuum = INCREMENTAL');
	db.pragma('journal_mode = WAL');
	db.pragma('foreign_keys = ON');
	// WAL with synchronous=NORMAL can lose the last commits on power loss but never corrupts; a
	// process crash (what durable runs guard against) loses nothing, so FULL is the honest choice.
	db.pragma('synchronous = FULL');
	db.pragma('busy_timeout = 5000');
	migrate(db);
	return db;
}
