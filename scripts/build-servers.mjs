// Bundles the in-repo MCP servers into build/servers/, one runnable .mjs each. Dependencies stay
// external (resolved from node_modules at run time); only our own modules are inlined.
// Runs after `vite build`, which empties build/.
import { build } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

await build({
	absWorkingDir: root,
	entryPoints: { fetch: 'servers/fetch/main.ts', 'tool-host': 'servers/tool-host/main.ts' },
	outdir: 'build/servers',
	outExtension: { '.js': '.mjs' },
	platform: 'node',
	format: 'esm',
	target: 'node20',
	bundle: true,
	packages: 'external',
	banner: { js: '#!/usr/bin/env node' },
	logLevel: 'warning'
});

// The banner makes it runnable as a command too.
for (const name of ['fetch', 'tool-host']) await chmod(`${root}build/servers/${name}.mjs`, 0o755);
