// npm run backup -- <dir>: a consistent copy of the SQLite file (while the service runs), the
// memory file and a manifest (README "Backups").
import { parseArgs } from 'node:util';
import { backupSqlite } from '../src/lib/server/portable/sqlite-backup';
import { PortableError } from '../src/lib/server/portable/portable-error';
import { runTool, sophosVersion, toolSettings } from './tool-cli';

await runTool(async () => {
	const { positionals } = parseArgs({ allowPositionals: true, options: {} });
	if (positionals.length !== 1) throw new PortableError('USAGE', 'usage: npm run backup -- <directory>');
	const settings = toolSettings();
	if (settings.DATABASE_URL !== undefined) {
		throw new PortableError('USAGE', 'DATABASE_URL is set: back up PostgreSQL with pg_dump (README "Backups")');
	}
	const manifest = await backupSqlite({
		databaseFile: settings.paths.database,
		memoryFile: settings.paths.memoryFile,
		dir: positionals[0]!,
		sophosVersion: sophosVersion()
	});
	const counts = Object.entries(manifest.counts).map(([table, n]) => `${table} ${n}`).join(', ');
	console.log(`Backed up ${settings.paths.database} (schema ${manifest.schemaVersion}) to ${positionals[0]}: ${counts}`);
	console.log(manifest.memory ? `Memory file: ${manifest.memory.bytes} bytes` : 'Memory file: none at MEMORY_FILE_PATH');
});
