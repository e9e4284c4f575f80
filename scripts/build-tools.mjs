// Bundles the data tools (backup, restore, migrate) into build/tools/, one runnable .mjs each, so
// they run where the service runs: from the build, with production dependencies only (tsx, which
// would run scripts/*.ts as they are, is a devDependency). Dependencies stay external.
import { build } from 'esbuild';
import { bundleOptions } from './esbuild-options.mjs';

await build({
	...bundleOptions,
	entryPoints: { backup: 'scripts/backup.ts', restore: 'scripts/restore.ts', migrate: 'scripts/migrate.ts' },
	outdir: 'build/tools'
});
