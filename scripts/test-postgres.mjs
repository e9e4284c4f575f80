// `npm run test:postgres`: only the postgres project (in-process tests on a real PostgreSQL), with
// PostgreSQL installed from Debian when missing; no build needed. Extra arguments go to vitest.
import { spawnSync } from 'node:child_process';
import { ensureDependencies, ensurePostgres, root, run } from './ensure.mjs';

ensureDependencies();
ensurePostgres();
// The tsconfig vitest reads extends the one svelte-kit generates.
run('npx', ['svelte-kit', 'sync']);
const result = spawnSync('npx', ['vitest', 'run', '--project', 'postgres', ...process.argv.slice(2)], {
	cwd: root,
	stdio: 'inherit'
});
process.exit(result.status ?? 1);
