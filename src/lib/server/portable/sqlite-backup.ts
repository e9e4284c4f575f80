import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir, restrictFile } from '../private-files';
import { type BackupManifest, describeFile, MANIFEST_NAME } from './backup-manifest';
import { PortableError } from './portable-error';
import { APP_TABLES, CHECKPOINT_TABLES, countSqliteTables } from './table-counts';

export const BACKUP_DATABASE_NAME = 'sophos.db';
export const BACKUP_MEMORY_NAME = 'memory.jsonl';

/**
 * A consistent copy of the SQLite file through SQLite's online backup (a copy of the file while
 * the service writes its WAL would be torn), the memory server's file beside it, and a manifest
 * with counts and checksums. The service may go on running and writing: the backup reads through
 * a connection of its own, and SQLite restarts a step that a write overtook.
 */
export async function backupSqlite(options: {
	databaseFile: string;
	memoryFile: string;
	dir: string;
	sophosVersion: string;
}): Promise<BackupManifest> {
	const { dir } = options;
	if (!fs.existsSync(options.databaseFile)) throw new PortableError('USAGE', `no SQLite file at DATABASE_PATH (${options.databaseFile}): nothing to back up`);
	if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
		throw new PortableError('TARGET_NOT_EMPTY', `${dir} is not empty: back up into a new or empty directory`);
	}
	ensurePrivateDir(dir);
	const copy = path.join(dir, BACKUP_DATABASE_NAME);
	const source = new Database(options.databaseFile, { fileMustExist: true });
	try {
		// Past the first 100 pages, the rest in one step: many small steps give a busy service's
		// writes as many chances to make SQLite start the copy again.
		await source.backup(copy, { progress: () => 1 << 30 });
	} finally {
		source.close();
	}
	restrictFile(copy);
	const copied = new Database(copy);
	let schemaVersion: number;
	let counts: Record<string, number>;
	try {
		// One self-contained file: the copy carries the source's WAL mode in its header.
		copied.pragma('journal_mode = DELETE');
		const [check] = copied.pragma('quick_check') as { quick_check: string }[];
		if (check?.quick_check !== 'ok') throw new PortableError('VERIFY_FAILED', `the copy of ${options.databaseFile} fails quick_check: ${check?.quick_check}`);
		schemaVersion = copied.pragma('user_version', { simple: true }) as number;
		const present = new Set(
			(copied.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]).map((r) => r.name)
		);
		counts = countSqliteTables(copied, [...APP_TABLES, ...CHECKPOINT_TABLES].filter((t) => present.has(t)));
	} finally {
		copied.close();
	}
	const memory = fs.existsSync(options.memoryFile) ? copyMemoryFile(options.memoryFile, dir) : null;
	const manifest: BackupManifest = {
		format: 'sophos-backup',
		formatVersion: 1,
		sophosVersion: options.sophosVersion,
		createdAt: new Date().toISOString(),
		schemaVersion,
		database: describeFile(dir, BACKUP_DATABASE_NAME),
		memory,
		counts
	};
	fs.writeFileSync(path.join(dir, MANIFEST_NAME), `${JSON.stringify(manifest, null, '\t')}\n`, { mode: 0o600 });
	return manifest;
}

/**
 * The memory server rewrites its whole file on each change, so a copy taken during a write may be
 * cut short: each line must be one JSON record, else the backup stops rather than keep a torn graph.
 */
function copyMemoryFile(file: string, dir: string) {
	const text = fs.readFileSync(file, 'utf8');
	for (const line of text.split('\n')) {
		if (line.trim() === '') continue;
		try {
			JSON.parse(line);
		} catch (e) {
			throw new PortableError('VERIFY_FAILED', `${file} changed while it was read (a line is not JSON): run the backup again`, { cause: e });
		}
	}
	fs.writeFileSync(path.join(dir, BACKUP_MEMORY_NAME), text, { mode: 0o600 });
	return describeFile(dir, BACKUP_MEMORY_NAME);
}
