import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { ensurePrivateDir } from '../private-files';
import { openDatabase } from '../sqlite/database';
import { MIGRATIONS } from '../sqlite/migrations';
import { type BackupManifest, type FileEntry, readCheckedManifest } from './backup-manifest';
import { PortableError } from './portable-error';
import { holdSqliteFile } from './sqlite-hold';

/** `PRAGMA user_version` of the backup's copy, read without writing to it. */
function schemaOf(file: string): number {
	const db = new Database(file, { readonly: true, fileMustExist: true });
	try {
		return db.pragma('user_version', { simple: true }) as number;
	} catch (e) {
		throw new PortableError('BAD_BACKUP', `${path.basename(file)} is not an SQLite database: not a Sophos backup`, { cause: e });
	} finally {
		db.close();
	}
}

export type RestoreReport = { manifest: BackupManifest; schemaFrom: number; schemaTo: number };

/**
 * Writes the SQLite file and the memory file from a backup directory made by `backupSqlite`, after
 * its checksums pass, then opens the restored file as the service would (upgrading an older schema)
 * and checks its integrity. Refuses, before writing anything, a schema newer than this release and
 * files that exist, unless `overwrite`; a database a running service holds is refused even then.
 * Runs that were `running` at backup time stay so on disk: the service's start-up recovery finds
 * them as after a crash and records them `interrupted`, resumable.
 */
export function restoreSqlite(options: { dir: string; databaseFile: string; memoryFile: string; overwrite: boolean }): RestoreReport {
	const manifest = readCheckedManifest(options.dir);
	// The file's own version decides: an edited manifest must not let a newer file over the old one
	// (opening it afterwards would refuse it, with the file it replaced already gone).
	const schema = schemaOf(path.join(options.dir, manifest.database.name));
	if (schema !== manifest.schemaVersion) {
		throw new PortableError('BAD_BACKUP', `${manifest.database.name} has schema version ${schema}, its manifest says ${manifest.schemaVersion}: not a backup this tool made`);
	}
	if (schema > MIGRATIONS.length) {
		throw new PortableError(
			'SCHEMA_NEWER',
			`the backup's schema version ${schema} is newer than this Sophos knows (${MIGRATIONS.length}): restore it with a newer Sophos`
		);
	}
	const targets: [FileEntry, string][] = [[manifest.database, options.databaseFile]];
	if (manifest.memory) targets.push([manifest.memory, options.memoryFile]);
	for (const [, target] of targets) {
		if (fs.existsSync(target) && fs.statSync(target).size > 0 && !options.overwrite) {
			throw new PortableError('TARGET_NOT_EMPTY', `${target} exists: restore over it with --overwrite, or move it away first`);
		}
	}
	if (fs.existsSync(options.databaseFile) && fs.statSync(options.databaseFile).size > 0) holdSqliteFile(options.databaseFile).close();
	for (const [entry, target] of targets) {
		ensurePrivateDir(path.dirname(target));
		const partial = `${target}.restoring`;
		fs.copyFileSync(path.join(options.dir, entry.name), partial);
		fs.chmodSync(partial, 0o600);
		// The WAL of the file being replaced belongs to it: beside the restored file it would be replayed into it.
		if (target === options.databaseFile) for (const suffix of ['-wal', '-shm']) fs.rmSync(`${target}${suffix}`, { force: true });
		fs.renameSync(partial, target);
	}
	const db = openDatabase(options.databaseFile);
	try {
		const [check] = db.pragma('integrity_check') as { integrity_check: string }[];
		if (check?.integrity_check !== 'ok') {
			throw new PortableError('VERIFY_FAILED', `the restored ${options.databaseFile} fails integrity_check: ${check?.integrity_check}`);
		}
		return { manifest, schemaFrom: manifest.schemaVersion, schemaTo: db.pragma('user_version', { simple: true }) as number };
	} finally {
		db.close();
	}
}
