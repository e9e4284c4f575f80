import { spawn } from 'node:child_process';
import path from 'node:path';
import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { holdSqliteFile } from '../../../src/lib/server/portable/sqlite-hold';
import { PortableError } from '../../../src/lib/server/portable/portable-error';
import { ROOT, tempDir } from '../../support/service';

/** Another process with the file open as the service opens it (WAL), idle after its first write. */
async function holder(file: string) {
	const child = spawn(
		process.execPath,
		['--import', 'tsx', '-e', `const { openDatabase } = await import(${JSON.stringify(path.join(ROOT, 'src/lib/server/sqlite/database.ts'))}); openDatabase(${JSON.stringify(file)}); console.log('open'); setInterval(() => {}, 1000);`],
		{ cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] }
	);
	await once(child.stdout, 'data');
	return child;
}

describe('holdSqliteFile', () => {
	let child: ReturnType<typeof spawn> | undefined;
	afterEach(() => {
		child?.kill('SIGKILL');
	});

	it('refuses IN_USE while another process has the file open and idle, and holds it once that process is gone', async () => {
		const file = path.join(tempDir(), 'sophos.db');
		openDatabase(file).close();
		child = await holder(file);
		const refusal = (() => {
			try {
				holdSqliteFile(file).close();
			} catch (e) {
				return e;
			}
		})();
		expect(refusal).toBeInstanceOf(PortableError);
		expect((refusal as PortableError).code).toBe('IN_USE');
		child.kill('SIGKILL');
		await once(child, 'exit');
		const held = holdSqliteFile(file);
		// While held, a service opening the file cannot read it.
		expect(() => openDatabase(file)).toThrow(/locked/);
		held.close();
		openDatabase(file).close();
	});
});
