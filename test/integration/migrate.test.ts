import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { runDataTool } from '../support/data-tools';
import { createTestDatabase, startPostgres, type PostgresServer } from '../support/postgres';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service, tempDir } from '../support/service';
import { followRun } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/**
 * "write <item>" calls the `effect` write (it waits for approval), "peek" a read; "hold me" streams an
 * answer held after its first chunk; anything else is answered at once.
 */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const done = after.some((m) => m.role === 'tool');
	const write = /^write (\w+)$/.exec(user);
	if (write) return done ? { content: 'Finished.' } : { content: 'Saving.', toolCalls: [{ name: 'test__effect', arguments: { item: write[1] } }] };
	if (user === 'hold me') return { content: 'Cut short here.', holdAfterChunks: 1, hold: 'queue' };
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

	/** A migration to `to` killed after its second thread, refused when run again without --resume, then finished with it. */
	async function killedThenResumed(to: string, env: Record<string, string>, refusal: RegExp) {
		const killed = await runDataTool('migrate', ['--to', to], { ...env, SOPHOS_CRASH_AT: 'after-migrated-thread:2' });
		expect(killed).toMatchObject({ code: null, signal: 'SIGKILL' });
		expect(killed.stdout).toMatch(/Copied the rows of/);
		const refused = await runDataTool('migrate', ['--to', to], env);
		expect(refused.code).toBe(1);
		expect(refused.stderr).toMatch(refusal);
		const resumed = await runDataTool('migrate', ['--to', to, '--resume'], env);
		expect(resumed.stderr).toBe('');
		expect(resumed.code).toBe(0);
		expect(resumed.stdout).toMatch(/\(resuming\)/);
	}

	const sqliteEnv = (dataDir: string) => ({ DATABASE_PATH: path.join(dataDir, 'sophos.db'), MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl') });
	/** The items the `effect` write was made for, in order (its log line is `effect <key> <item>`). */
	const effects = () => config.calls().filter((l) => l.startsWith('effect ')).map((l) => l.split(' ').at(-1));

	it('moves tool calls, an edit with two versions, a waiting approval, an always-allowed write and a long conversation to PostgreSQL, where the approval runs once, and back to SQLite', async () => {
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir, configDir: config.configDir });
		await send(service, { message: 'peek' });
		const edited = await send(service, { message: 'first' });
		const firstId = (await json(service, `/api/conversations/${edited}`)).messages[0].id;
		await send(service, { conversation: edited, message: 'first, edited', editOf: firstId });
		const waiting = await send(service, { message: 'write a' });
		// Another write, approved and always allowed: its outcome in the journal, the tool in allowed_tools.
		const allowed = await send(service, { message: 'write b' });
		const asked = (await json(service, `/api/conversations/${allowed}`)).approvals as { toolCallId: string }[];
		await send(service, { conversation: allowed, decisions: [{ toolCallId: asked[0]!.toolCallId, action: 'approve', remember: true }] });
		expect(effects()).toEqual(['b']);
		const long = await send(service, { message: 'turn 0' });
		for (let i = 1; i < 6; i++) await send(service, { conversation: long, message: `turn ${i}` });
		const before = await views(service);
		expect((before.each.find((c) => c.detail.conversation.id === waiting)!.detail as { approvals: unknown[] }).approvals).toHaveLength(1);
		expect(JSON.stringify(before.each.find((c) => c.detail.conversation.id === edited)!.detail)).toContain('"versions"');
		expect(before.allowed).toMatchObject({ allowed: [{ tool: 'test__effect' }] });

		const target = await createTestDatabase(postgres.url(), 'migrate');
		const held = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(held.code).toBe(1);
		expect(held.stderr).toMatch(/sophos\.db is open in a running Sophos \(or another program\): stop it first/);
		await service.stop();

		const migrated = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(migrated.stderr).toBe('');
		expect(migrated.code).toBe(0);
		expect(migrated.stdout).toMatch(/conversations: 5 → 5/);
		expect(migrated.stdout).toMatch(/allowed_tools: 1 → 1/);
		expect(migrated.stdout).toMatch(/each read back from both and the same/);

		const again = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(again.code).toBe(1);
		expect(again.stderr).toMatch(/is not empty \(5 in conversations, .*\): migrate into an empty database, or pass --resume/);

		service = await Service.start({ ollamaUrl: ollama.url, dataDir: tempDir(), configDir: config.configDir, env: { DATABASE_URL: target.url } });
		expect(await views(service)).toEqual(before);
		expect(effects()).toEqual(['b']);
		const pending = (before.each.find((c) => c.detail.conversation.id === waiting)!.detail as { approvals: { toolCallId: string }[] }).approvals;
		expect((await service.post('/api/chat', { conversation: waiting, decisions: [{ toolCallId: pending[0]!.toolCallId, action: 'approve' }] })).status).toBe(200);
		await followRun(service.url, waiting);
		expect(effects()).toEqual(['b', 'a']);
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

	it('finishes with --resume a migration killed halfway (SIGKILL), either way, and refuses to go on without it', async () => {
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir, configDir: config.configDir });
		for (let c = 0; c < 4; c++) {
			const conversation = await send(service, { message: `conversation ${c}` });
			await send(service, { conversation, message: 'peek' });
		}
		const before = await views(service);
		await service.stop();

		const target = await createTestDatabase(postgres.url(), 'migrate');
		await killedThenResumed(target.url, sqliteEnv(dataDir), /is not empty .*pass --resume to finish a migration that was interrupted/);

		service = await Service.start({ ollamaUrl: ollama.url, dataDir: tempDir(), configDir: config.configDir, env: { DATABASE_URL: target.url } });
		expect(await views(service)).toEqual(before);
		await service.stop();

		// The way back, killed halfway too: the new file is refused as existing, then finished with --resume.
		const backDir = tempDir();
		const backFile = path.join(backDir, 'sophos.db');
		await killedThenResumed(backFile, { ...sqliteEnv(dataDir), DATABASE_URL: target.url }, /exists: migrate into a new file, or pass --resume/);
		service = await Service.start({ ollamaUrl: ollama.url, dataDir: backDir, configDir: config.configDir });
		expect(await views(service)).toEqual(before);
		await target.drop();
	});

	it('carries a message queued behind a run a SIGKILL cut short: on PostgreSQL the run is interrupted and the message starts as the run it was queued as', async () => {
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir, configDir: config.configDir });
		const conversation = (await (await service.post('/api/chat', { message: 'hold me' })).json()).conversation as string;
		await ollama.held('queue');
		const queuedResponse = await service.post('/api/chat', { conversation, message: 'queued one', ifBusy: 'enqueue' });
		expect(queuedResponse.status).toBe(202);
		const { queued } = (await queuedResponse.json()) as { queued: string };
		const [cut] = (await json(service, `/api/conversations/${conversation}/runs`)).runs as { id: string }[];
		expect((await json(service, `/api/conversations/${conversation}`)).queue).toMatchObject([{ id: queued, message: 'queued one' }]);
		await service.kill();
		ollama.release('queue');

		const target = await createTestDatabase(postgres.url(), 'migrate');
		const migrated = await runDataTool('migrate', ['--to', target.url], sqliteEnv(dataDir));
		expect(migrated.stderr).toBe('');
		expect(migrated.code).toBe(0);
		expect(migrated.stdout).toMatch(/queued_messages: 1 → 1/);
		expect(migrated.stdout).toMatch(/runs: 1 → 1/);

		service = await Service.start({ ollamaUrl: ollama.url, dataDir: tempDir(), configDir: config.configDir, env: { DATABASE_URL: target.url } });
		// Recovery records the cut run interrupted, then starts what waited, in the background.
		await vi.waitFor(
			async () => expect(((await json(service!, `/api/conversations/${conversation}/runs`)).runs as { status: string }[]).map((r) => r.status)).toEqual(['completed', 'interrupted']),
			{ timeout: 30_000, interval: 50 }
		);
		const runs = (await json(service, `/api/conversations/${conversation}/runs`)).runs as { id: string; input: string | null }[];
		expect(runs.map((r) => [r.id, r.input])).toEqual([
			[queued, 'queued one'],
			[cut!.id, 'hold me']
		]);
		const detail = await json(service, `/api/conversations/${conversation}`);
		expect(detail.queue).toEqual([]);
		expect(detail.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
			['user', 'hold me'],
			['user', 'queued one'],
			['assistant', 'Answer to queued one.']
		]);
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
