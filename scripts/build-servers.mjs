// Bundles the in-repo MCP servers into build/servers/, one runnable .mjs each. Dependencies stay
// external (resolved from node_modules at run time); only our own modules are inlined.
// Runs after `vite build`, which empties build/.
import { build } from 'esbuild';
import { chmod } from 'node:fs/promises';
import { bundleOptions, root } from './esbuild-options.mjs';

await build({
	...bundleOptions,
	entryPoints: { fetch: 'servers/fetch/main.ts', 'tool-host': 'servers/tool-host/main.ts' },
	outdir: 'build/servers',
	banner: { js: '#!/usr/bin/env node' }
});

// The banner makes it runnable as a command too.
for (const name of ['fetch', 'tool-host']) await chmod(`${root}build/servers/${name}.mjs`, 0o755);
