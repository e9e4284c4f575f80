// `npm test`: installs what is missing (dependencies, Debian's Chromium for the browser tests and
// PostgreSQL for the postgres project, Prometheus for the monitoring tests), type-checks, builds the app and the in-repo MCP servers,
// then runs every test project once.
import fs from 'node:fs';
import { spawnSync } from 'node:child_process';
import { aptInstall, ensureDependencies, ensurePostgres, ensurePrometheus, root, run } from './ensure.mjs';

const CHROMIUM = '/usr/bin/chromium';

function ensureChromium() {
	if (fs.existsSync(CHROMIUM)) return;
	console.log('Installing Chromium from Debian packages (apt-get)…');
	aptInstall('chromium');
}

ensureDependencies();
ensureChromium();
ensurePostgres();
ensurePrometheus();
run('npm', ['run', 'check']);
run('npm', ['run', 'build']);
const args = process.argv.slice(2);
const result = spawnSync('npx', ['vitest', 'run', ...args], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
