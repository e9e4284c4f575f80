// The esbuild options every bundle of ours shares (build-servers.mjs, build-tools.mjs): one .mjs per
// entry point for Node 20, our own modules inlined, dependencies left external (resolved from
// node_modules at run time, production dependencies only).
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

/** @type {import('esbuild').BuildOptions} */
export const bundleOptions = {
	absWorkingDir: root,
	outExtension: { '.js': '.mjs' },
	platform: 'node',
	format: 'esm',
	target: 'node20',
	bundle: true,
	packages: 'external',
	logLevel: 'warning'
};
