// Installs and builds what is missing, using nothing but Node's standard library, so that
// `npm start`, `npm test` and `npm run bench` work on a fresh clone.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export function run(command, args, options = {}) {
	const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', ...options });
	if (result.status !== 0) {
		console.error(`${command} ${args.join(' ')} failed (exit ${result.status ?? result.signal})`);
		process.exit(result.status || 1);
	}
}

function newestMtime(dir) {
	let newest = 0;
	for (const entry of fs.readdirSync(path.join(root, dir), { withFileTypes: true, recursive: true })) {
		if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
	}
	return newest;
}

export function ensureDependencies() {
	const marker = path.join(root, 'node_modules', '.package-lock.json');
	const lock = path.join(root, 'package-lock.json');
	if (!fs.existsSync(marker) || fs.statSync(marker).mtimeMs < fs.statSync(lock).mtimeMs) {
		console.log('Installing dependencies (npm ci)…');
		run('npm', ['ci', '--no-audit', '--no-fund']);
	}
}

/** Builds when there is no build or a source is newer than it. */
export function ensureBuild() {
	const built = path.join(root, 'build', 'index.js');
	const stale =
		!fs.existsSync(built) ||
		Math.max(newestMtime('src'), newestMtime('servers')) > fs.statSync(built).mtimeMs;
	if (stale) {
		console.log('Building…');
		run('npm', ['run', 'build']);
	}
}

let aptUpdated = false;

/** Installs Debian packages with apt-get (through sudo when not root); the index is updated once. */
export function aptInstall(...packages) {
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const apt = (args) =>
		process.getuid?.() === 0 ? run('apt-get', args, { env }) : run('sudo', ['apt-get', ...args], { env });
	if (!aptUpdated) apt(['update', '-qq']);
	aptUpdated = true;
	apt(['install', '-y', '-qq', ...packages]);
}

/** The tests and benches start their own servers from Debian's PostgreSQL 15 binaries. */
export const POSTGRES_INITDB = '/usr/lib/postgresql/15/bin/initdb';

export function ensurePostgres() {
	if (fs.existsSync(POSTGRES_INITDB)) return;
	console.log('Installing PostgreSQL from Debian packages (apt-get)…');
	aptInstall('postgresql');
}

/** The monitoring tests scrape the service with Debian's Prometheus and check its output with promtool. */
export const PROMETHEUS = '/usr/bin/prometheus';

export function ensurePrometheus() {
	if (fs.existsSync(PROMETHEUS) && fs.existsSync('/usr/bin/promtool')) return;
	console.log('Installing Prometheus from Debian packages (apt-get)…');
	aptInstall('prometheus');
}
