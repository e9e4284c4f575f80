import fs from 'node:fs';
import path from 'node:path';
import { testMcpServerCommand } from './mcp-test-server-command';
import { ROOT, tempDir } from './service';

/**
 * The default MCP config plus the misbehaving test server, whose calls are journalled in `log`.
 * Its tools run without asking unless `approval` says otherwise (undefined: TOOL_APPROVAL decides,
 * so its `effect` write waits for a person); `stderr`: lines it writes to its stderr as it starts.
 */
export function testMcpConfig(options: { approval?: 'auto' | 'ask'; stderr?: string } = { approval: 'auto' }): {
	configDir: string;
	log: string;
	calls: () => string[];
} {
	const configDir = tempDir('sophos-config-');
	const log = path.join(configDir, 'calls.log');
	const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/mcp.json'), 'utf8'));
	const test = {
		...testMcpServerCommand(),
		env: { TEST_MCP_LOG: log, ...(options.stderr ? { TEST_MCP_STDERR: options.stderr } : {}) },
		// Ours: its annotations are believed (mcp.json `trusted`).
		trusted: true,
		...(options.approval ? { approval: options.approval } : {})
	};
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ ...base, test }));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(configDir, 'system.md'));
	return {
		configDir,
		log,
		calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n').filter(Boolean) : [])
	};
}

/** Resolves once a line matching `pattern` is in the file; watches it rather than polling on a timer. */
export function waitForLine(file: string, pattern: RegExp): Promise<string> {
	const found = () => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').find((l) => pattern.test(l)) : undefined);
	return new Promise((resolve) => {
		const check = () => {
			const line = found();
			if (line === undefined) return;
			watcher.close();
			resolve(line);
		};
		const watcher = fs.watch(path.dirname(file), check);
		check();
	});
}
