import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runDataTool } from '../support/data-tools';
import { createTestDatabase, startPostgres, type PostgresServer } from '../support/postgres';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service, tempDir } from '../support/service';
import { followRun } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/** "write a" calls the `effect` write (it waits for approval), "peek" a read; anything else is answered at once. */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const done = after.some((m) => m.role === 'tool');
	if (user === 'write a') return done ? { content: 'Finished.' } : { content: 'Saving.', toolCalls: [{ name: 'test__effect', arguments: { item: 'a' } }] };
	if (user === 'peek') return done ? { content: 'All quiet.' } : { toolCalls: [{ name: 'test__peek', arguments: {} }] };
	return { content: `Answer to ${user}.` };
};

const json = async (service: Service, pathname: string) => {
	const response = await service.fetch(pathname);
	expect(response.status, pathname).toBe(200);
	return pathname.includes('/export') ? response.text() : response.json();
};

/** Every API view of the conversations: the list, each one's detail, runs and exports, the allowed tools. */
async function views(service: Service) {
	const list = (await json(service, '/api/conversations')) as { conversations: { id: string }[] };
	const each = [];
	for (const { id } of list.conversations) {
		each.push({
			detail: await json(service, `/api/conversations/${id}`),
			runs: await json(service, `/api/conversations/${id}/runs`),
			markdown: await json(service, `/api/conversations/${id}/export`),
			checkpoints: await json(service, `/api/conversations/${id}/export?format=jsonl&branches=all`)
		});
	}
	return { list, each, allowed: await json(service, '/api/allowed-tools') };
}

async function send(service: Service, body: Record<string, unknown>): Promise<string> {
	const response = await service.post('/api/chat', body);
	expect(response.status).toBe(200);
	const { conversation } = await response.json();
	await followRun(service.url, conversation);
	return conversation;
}

/** Issue 25: the SQLite file's conversations moved to PostgreSQL and back, whole and checked. */
describe('npm run migrate', () => {
	let postgres: PostgresServer;
	let ollama: ScriptedOllama;
	let service: Service | undefined;
	const config = testMcpConfig({});
	beforeAll(async () => {
		postgres = await startPostgres();
		ollama = await ScriptedOllama.start(script);
	});
	afterEach(async () => {
		await service?.stop();
		service = undefined;
	});
	afterAll(async () => {
		await ollama?.close();
		await postgres?.stop();
	});

	const sqliteEnv = (dataDir: string) => ({ DATABASE_PATH: path.join(dataDir, 'sophos.db'), MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl') });
	const effects = () => config.calls().filter((l) => l.startsWith('effect '));

	it('moves tool calls, an edit with two versions, a waiting approval and a long conversation to PostgreSQL, where the approval runs once, and back to SQLite', async () => {
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir, configDir: config.configDir });
		await send(service, { message: 'peek' });
		const edited = await send(service, { message: 'first' });
		const firstId = (await json(service, `/api/conversations/${edited}`)).messages[0].id;
		await send(service, { conversation: edited, message: 'first, edited', editOf: firstId });
		const waiting = await send(service, { message: 'write a' });
		const long = await send(service, { message: 'turn 0' });
		for (let i = 1; i < 6; i++) await send(service, { conversation: long, message: `turn ${i}` });
		const before = await views(service);
		expect((before.each.find((c) => c.detail.conversation.id === waiting)!.detail as { approvals: unknown[] }).approvals).toHaveLength(1);
		expect(JSON.stringify(before.each.find((c) => c.detail.conversation.id === edited)!.detail)).toContain('"versions"');

		const target = await createTestDatabase(postgres.url(), 'migrate');
		const held = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(held.code).toBe(1);
		expect(held.stderr).toMatch(/sophos\.db is open in a running Sophos \(or another program\): stop it first/);
		await service.stop();

		const migrated = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(migrated.stderr).toBe('');
		expect(migrated.code).toBe(0);
		expect(migrated.stdout).toMatch(/conversations: 4 → 4/);
		expect(migrated.stdout).toMatch(/each read back from both and the same/);

		const again = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(again.code).toBe(1);
		expect(again.stderr).toMatch(/is not empty \(4 in conversations, .*\): migrate into an empty database, or pass --resume/);

		service = await Service.start({ ollamaUrl: ollama.url, dataDir: tempDir(), configDir: config.configDir, env: { DATABASE_URL: target.url } });
		expect(await views(service)).toEqual(before);
		expect(effects()).toEqual([]);
		const pending = (before.each.find((c) => c.detail.conversation.id === waiting)!.detail as { approvals: { toolCallId: string }[] }).approvals;
		expect((await service.post('/api/chat', { conversation: waiting, decisions: [{ toolCallId: pending[0]!.toolCallId, action: 'approve' }] })).status).toBe(200);
		await followRun(service.url, waiting);
		expect(effects()).toHaveLength(1);
		const onPostgres = await views(service);
		await service.stop();

		const backDir = tempDir();
		const back = await runDataTool('migrate', ['--to', path.join(backDir, 'sophos.db')], { ...sqliteEnv(dataDir), DATABASE_URL: target.url });
		expect(back.stderr).toBe('');
		expect(back.code).toBe(0);
		const refusedBack = await runDataTool('migrate', ['--to', path.join(backDir, 'sophos.db')], { ...sqliteEnv(dataDir), DATABASE_URL: target.url });
		expect(refusedBack.code).toBe(1);
		expect(refusedBack.stderr).toMatch(/exists: migrate into a new file, or pass --resume/);
		service = await Service.start({ ollamaUrl: ollama.url, dataDir: backDir, configDir: config.configDir });
		expect(await views(service)).toEqual(onPostgres);
		await target.drop();
	});

	it('finishes with --resume a migration killed halfway, and refuses to go on without it', async () => {
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir, configDir: config.configDir });
		for (let c = 0; c < 4; c++) {
			const conversation = await send(service, { message: `conversation ${c}` });
			await send(service, { conversation, message: 'peek' });
		}
		const before = await views(service);
		await service.stop();

		const target = await createTestDatabase(postgres.url(), 'migrate');
		const killed = await runDataTool('migrate', ['--to', target.url], { ...sqliteEnv(dataDir), SOPHOS_CRASH_AT: 'after-migrated-thread:2' });
		expect(killed.code).toBe(null);
		const refused = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(/pass --resume to finish a migration that was interrupted/);
		const resumed = await runDataTool('migrate', ['--to', target.url, '--resume'], sqliteEnv(dataDir));
		expect(resumed.stderr).toBe('');
		expect(resumed.code).toBe(0);
		expect(resumed.stdout).toMatch(/\(resuming\)/);

		service = await Service.start({ ollamaUrl: ollama.url, dataDir: tempDir(), configDir: config.configDir, env: { DATABASE_URL: target.url } });
		expect(await views(service)).toEqual(before);
		await target.drop();
	});

	it('refuses a PostgreSQL target it cannot open, naming it without its password, and a missing source file', async () => {
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir, configDir: config.configDir });
		await send(service, { message: 'hello' });
		await service.stop();
		const unreachable = await runDataTool('migrate', ['--to', `postgres://sophos:hunter2-secret@127.0.0.1:${postgres.port}/no_such_database`], sqliteEnv(dataDir));
		expect(unreachable.code).toBe(1);
		expect(unreachable.stderr).toMatch(/^Refused: Cannot open PostgreSQL at 127\.0\.0\.1:\d+\/no_such_database: /);
		expect(unreachable.stderr + unreachable.stdout).not.toContain('hunter2');
		const missing = await runDataTool('migrate', ['--to', postgres.url()], sqliteEnv(tempDir()));
		expect(missing.code).toBe(1);
		expect(missing.stderr).toMatch(/no SQLite file at DATABASE_PATH/);
	});

	const fixtures = path.resolve(import.meta.dirname, '../fixtures/upgrade');
	it.each(fs.readdirSync(fixtures).filter((f) => f.endsWith('.sqlite')))('migrates the file of an earlier layout, %s, as the service upgrades it', async (name) => {
		const dataDir = tempDir();
		for (const suffix of ['', '-wal', '-shm']) {
			if (fs.existsSync(path.join(fixtures, name + suffix))) fs.copyFileSync(path.join(fixtures, name + suffix), path.join(dataDir, `sophos.db${suffix}`));
		}
		const target = await createTestDatabase(postgres.url(), 'migrate');
		const migrated = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(migrated.stderr, name).toBe('');
		expect(migrated.code, name).toBe(0);
		// The tool upgraded the fixture in place and compared every checkpoint; the service on
		// PostgreSQL serves each conversation it holds (a fixture's queued message may start there
		// after recovery, so the views are not compared at a moment a run may be writing).
		const file = new Database(sqliteEnv(dataDir).DATABASE_PATH, { readonly: true });
		const held = file.prepare('SELECT id, title FROM conversations ORDER BY id').all();
		file.close();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir: tempDir(), configDir: config.configDir, env: { DATABASE_URL: target.url } });
		const { conversations } = (await json(service, '/api/conversations')) as { conversations: { id: string; title: string }[] };
		expect(conversations.map(({ id, title }) => ({ id, title })).sort((a, b) => (a.id < b.id ? -1 : 1)), name).toEqual(held);
		for (const { id } of conversations) await json(service, `/api/conversations/${id}`);
		await service.stop();
		service = undefined;
		await target.drop();
	});
});
