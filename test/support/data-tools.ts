import { spawn } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './service';

/** `signal`: what ended a tool that did not exit (SIGKILL from SOPHOS_CRASH_AT). */
export type ToolResult = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

/** One of the built data tools (build/tools/<name>.mjs: backup, restore, migrate) as a user runs it. */
export function runDataTool(name: 'backup' | 'restore' | 'migrate', args: string[], env: Record<string, string>): Promise<ToolResult> {
	const child = spawn(process.execPath, [path.join(ROOT, 'build/tools', `${name}.mjs`), ...args], {
		cwd: ROOT,
		env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
		stdio: ['ignore', 'pipe', 'pipe']
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
	child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
	return new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}
