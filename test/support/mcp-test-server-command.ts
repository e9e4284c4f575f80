import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { buildSync } from 'esbuild';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SOURCE = path.join(ROOT, 'test/support/mcp-test-server.ts');

let built: string | undefined;

/**
 * The test MCP server as one plain module, built once per version of its source: run through tsx,
 * every service start paid for compiling it again (about 0.7 s of CPU each on this machine).
 * Written under node_modules so that its packages resolve, renamed into place so that two test
 * workers building it at once never read half a file.
 */
function builtServer(): string {
	if (built) return built;
	const hash = crypto.createHash('sha256').update(fs.readFileSync(SOURCE)).digest('hex').slice(0, 12);
	const target = path.join(ROOT, 'node_modules/.cache/sophos-tests', `mcp-test-server-${hash}.mjs`);
	if (!fs.existsSync(target)) {
		fs.mkdirSync(path.dirname(target), { recursive: true });
		const partial = `${target}.${process.pid}.tmp`;
		buildSync({ entryPoints: [SOURCE], outfile: partial, bundle: true, platform: 'node', format: 'esm', packages: 'external', logLevel: 'error' });
		fs.renameSync(partial, target);
	}
	built = target;
	return target;
}

/** The command and arguments that start the test MCP server, for an mcp.json entry. */
export function testMcpServerCommand(): { command: string; args: string[] } {
	return { command: 'node', args: [builtServer()] };
}
