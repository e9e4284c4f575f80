// npm run restore -- <dir> [--overwrite]: writes DATABASE_PATH and MEMORY_FILE_PATH from a backup
// made by `npm run backup` (README "Backups").
import { parseArgs } from 'node:util';
import { restoreSqlite } from '../src/lib/server/portable/sqlite-restore';
import { PortableError } from '../src/lib/server/portable/portable-error';
import { runTool, toolSettings } from './tool-cli';

await runTool(() => {
	const { positionals, values } = parseArgs({ allowPositionals: true, options: { overwrite: { type: 'boolean', default: false } } });
	if (positionals.length !== 1) throw new PortableError('USAGE', 'usage: npm run restore -- <directory> [--overwrite]');
	const settings = toolSettings();
	if (settings.DATABASE_URL !== undefined) {
		throw new PortableError('USAGE', 'DATABASE_URL is set: restore PostgreSQL with pg_restore (README "Backups")');
	}
	const report = restoreSqlite({
		dir: positionals[0]!,
		databaseFile: settings.paths.database,
		memoryFile: settings.paths.memoryFile,
		overwrite: values.overwrite
	});
	const upgraded = report.schemaTo > report.schemaFrom ? `, upgraded from schema ${report.schemaFrom} to ${report.schemaTo}` : '';
	console.log(`Restored ${settings.paths.database} from ${positionals[0]} (Sophos ${report.manifest.sophosVersion}, ${report.manifest.createdAt})${upgraded}; integrity_check ok`);
	if (report.manifest.memory) console.log(`Restored ${settings.paths.memoryFile}`);
});
