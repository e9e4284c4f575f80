// Bundles the data tools (backup, restore, migrate) into build/tools/, one runnable .mjs each, so
// they run where the service runs: from the build, with production dependencies only (tsx, which
// would run scripts/*.ts as they are, is a devDependency). Dependencies stay external.
import { build } from 'esbuild';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

await build({
	absWorkingDir: root,
	entryPoints: { backup: 'scripts/backup.ts', restore: 'scripts/restore.ts', migrate: 'scripts/migrate.ts' },
	outdir: 'build/tools',
	outExtension: { '.js': '.mjs' },
	platform: 'node',
	format: 'esm',
	target: 'node20',
	bundle: true,
	packages: 'external',
	logLevel: 'warning'
});
