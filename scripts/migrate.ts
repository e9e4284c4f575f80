// npm run migrate -- --to <postgres url | sqlite path> [--resume]: copies everything Sophos keeps
// from the SQLite file at DATABASE_PATH to an empty PostgreSQL database, or from DATABASE_URL to a
// new SQLite file, and checks what it wrote (README "Moving to PostgreSQL").
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { createCrashInjector } from '../src/lib/server/crash-points';
import { migrateData } from '../src/lib/server/portable/data-migration';
import type { MigrationSide } from '../src/lib/server/portable/migration-side';
import { PortableError } from '../src/lib/server/portable/portable-error';
import { postgresSide } from '../src/lib/server/portable/postgres-side';
import { holdSqliteFile } from '../src/lib/server/portable/sqlite-hold';
import { sqliteSide } from '../src/lib/server/portable/sqlite-side';
import { openDatabase } from '../src/lib/server/sqlite/database';
import { migrate } from '../src/lib/server/sqlite/migrate';
import { runTool, toolSettings } from './tool-cli';

const isPostgresUrl = (to: string) => /^postgres(ql)?:\/\//.test(to);

/** The SQLite file held for this process alone, its schema brought up to date as the service's start would. */
function heldSqlite(file: string): MigrationSide {
	const db = holdSqliteFile(file);
	for (const note of migrate(db).notes) console.log(note);
	return sqliteSide(db, file);
}

await runTool(async () => {
	const { values } = parseArgs({ options: { to: { type: 'string' }, resume: { type: 'boolean', default: false } } });
	const to = values.to?.trim();
	if (!to) throw new PortableError('USAGE', 'usage: npm run migrate -- --to <postgres://… | path of a new SQLite file> [--resume]');
	const settings = toolSettings();
	let source: MigrationSide | undefined;
	let target: MigrationSide | undefined;
	try {
		if (isPostgresUrl(to)) {
			if (!fs.existsSync(settings.paths.database)) throw new PortableError('USAGE', `no SQLite file at DATABASE_PATH (${settings.paths.database})`);
			source = heldSqlite(settings.paths.database);
			target = await postgresSide(to);
		} else {
			if (settings.DATABASE_URL === undefined) throw new PortableError('USAGE', 'DATABASE_URL is not set: it names the PostgreSQL database to copy from');
			if (fs.existsSync(to) && fs.statSync(to).size > 0 && !values.resume) {
				throw new PortableError('TARGET_NOT_EMPTY', `${to} exists: migrate into a new file, or pass --resume to finish a migration that was interrupted`);
			}
			source = await postgresSide(settings.DATABASE_URL);
			openDatabase(to).close();
			target = heldSqlite(to);
		}
		console.log(`Migrating ${source.where} to ${target.where}${values.resume ? ' (resuming)' : ''}`);
		const report = await migrateData(source, target, {
			resume: values.resume,
			crash: createCrashInjector(settings.SOPHOS_CRASH_AT),
			log: (line) => console.log(line)
		});
		for (const [table, { source: n, target: m }] of Object.entries(report.counts)) console.log(`  ${table}: ${n} → ${m}`);
		console.log(`  checkpoints: ${report.checkpoints} in ${report.threads} threads, each read back from both and the same`);
		console.log(`Migrated and checked: start Sophos with ${isPostgresUrl(to) ? 'DATABASE_URL set to the target' : `DATABASE_PATH=${to} and DATABASE_URL unset`}`);
	} finally {
		await source?.close();
		await target?.close();
	}
});
