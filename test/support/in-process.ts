import fs from 'node:fs';
import path from 'node:path';
import { afterEach } from 'vitest';
import { startRuntime, type Runtime } from '../../src/lib/server/runtime';
import { parseSettings } from '../../src/lib/server/settings';
import { testMcpServerCommand } from './mcp-test-server-command';
import { ScriptedOllama, type Script } from './scripted-ollama';
import { ROOT, tempDir } from './service';

/**
 * The runtime in this process, as the composition root builds it for the service: a real SQLite
 * file in `dataDir` (kept across restarts), the misbehaving test MCP server as a child, and the
 * scripted model at `ollamaUrl`. Tests then call RunService, recovery and the executor directly.
 */
export async function startInProcess(options: {
	ollamaUrl: string;
	dataDir?: string;
	env?: Record<string, string>;
	/** More keys of the test server's mcp.json entry (e.g. `safeToRepeat`). */
	server?: Record<string, unknown>;
	/** More instances of the test server beside it, by name, each with these keys (e.g. `trusted: false`); one call log for all. */
	servers?: Record<string, Record<string, unknown>>;
}): Promise<{ runtime: Runtime; dataDir: string; calls: () => string[] }> {
	const dataDir = options.dataDir ?? tempDir('sophos-core-');
	const configDir = path.join(dataDir, 'config');
	const log = path.join(dataDir, 'calls.log');
	fs.mkdirSync(configDir, { recursive: true });
	const test = {
		...testMcpServerCommand(),
		env: { TEST_MCP_LOG: log },
		// Ours: its annotations are believed (mcp.json `trusted`).
		trusted: true,
		...options.server
	};
	const more = Object.fromEntries(Object.entries(options.servers ?? {}).map(([name, keys]) => [name, { ...testMcpServerCommand(), env: test.env, ...keys }]));
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ test, ...more }));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(configDir, 'system.md'));
	const env = {
		PATH: process.env.PATH,
		OLLAMA_HOST: options.ollamaUrl,
		DATABASE_PATH: path.join(dataDir, 'sophos.db'),
		MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl'),
		CONFIG_DIR: configDir,
		...options.env
	};
	const runtime = await startRuntime(parseSettings(env), env);
	const calls = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : []);
	return { runtime, dataDir, calls };
}

/**
 * For a test file's `describe`: the scripted model and the runtimes its tests start, all closed
 * after each test. `start` again with a runtime's `dataDir` is a restart on the same file.
 */
export function inProcessTests() {
	let ollama: ScriptedOllama | undefined;
	const runtimes: Runtime[] = [];
	afterEach(async () => {
		for (const rt of runtimes.splice(0)) await rt.close();
		await ollama?.close();
		ollama = undefined;
	});
	return {
		model: async (script: Script) => (ollama = await ScriptedOllama.start(script)),
		start: async (options: Parameters<typeof startInProcess>[0]) => {
			const started = await startInProcess(options);
			runtimes.push(started.runtime);
			return started;
		}
	};
}
