import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversationBundleSchema, type ConversationBundle, type ConversationDetail } from '../../src/lib/protocol';
import { createTestDatabase, startPostgres, type PostgresServer } from '../support/postgres';
import { openServiceDb } from '../support/service-db';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { answerScript, currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/** "save <item>" calls the test server's write (it counts its calls), then answers; other messages are answered. */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const save = /^save (\w+)/.exec(user);
	if (save && !after.some((m) => m.role === 'tool')) return { toolCalls: [{ name: 'test__effect', arguments: { item: save[1] } }] };
	return { content: `Answer ${request.messages.length} to ${user}.` };
};

async function ok(response: Response, status = 200) {
	const body = await response.clone().text();
	expect(response.status, body).toBe(status);
	return response;
}

/** Every API view of one conversation: detail, runs, the Markdown export and every checkpoint of every branch. */
async function views(service: Service, id: string) {
	const get = async (path: string) => ok(await service.fetch(path));
	return {
		detail: await (await get(`/api/conversations/${id}`)).json(),
		runs: await (await get(`/api/conversations/${id}/runs`)).json(),
		markdown: await (await get(`/api/conversations/${id}/export`)).text(),
		checkpoints: await (await get(`/api/conversations/${id}/export?format=jsonl&branches=all`)).text()
	};
}

/** Views of a conversation imported under new ids read as the original's once its ids are put back. */
function withIdsReplaced<T>(value: T, ids: Map<string, string>): T {
	let text = JSON.stringify(value);
	for (const [from, to] of ids) text = text.split(from).join(to);
	return JSON.parse(text) as T;
}

async function exportBundle(service: Service, id: string): Promise<ConversationBundle> {
	const response = await ok(await service.fetch(`/api/conversations/${id}/export?format=bundle`));
	expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${id}.sophos.json"`);
	return ConversationBundleSchema.parse(await response.json());
}

async function importBundle(service: Service, bundle: unknown, query = ''): Promise<string> {
	const response = await ok(await service.post(`/api/conversations/import${query}`, bundle), 201);
	return ((await response.json()) as { conversation: string }).conversation;
}

/** Rows of every table an import writes: what a refused import must leave as it was. */
async function rowCounts(service: Service): Promise<Record<string, number>> {
	const db = await openServiceDb(service.options.dataDir, service.options.env?.DATABASE_URL);
	try {
		const counts: Record<string, number> = {};
		for (const table of ['conversations', 'conversation_branches', 'runs', 'tool_calls', 'tool_approvals', 'lg_threads', 'lg_checkpoints', 'lg_writes']) {
			counts[table] = Number((await db.all<{ n: number | string }>(`SELECT count(*) AS n FROM ${table}`))[0]!.n);
		}
		return counts;
	} finally {
		await db.close();
	}
}

/** Below the default, so the setting is what refuses the large bundle. */
const MAX_IMPORT_BYTES = 262_144;

/** Issue 25: a conversation exported whole as one document and imported on either engine. */
describe('conversation bundles', () => {
	let postgres: PostgresServer;
	let ollama: ScriptedOllama;
	let onSqlite: Service;
	let onPostgres: Service;
	const config = testMcpConfig();
	const effects = () => config.calls().filter((l) => l.startsWith('effect'));

	beforeAll(async () => {
		postgres = await startPostgres();
		ollama = await ScriptedOllama.start(script);
		const database = await createTestDatabase(postgres.url(), 'bundle');
		[onSqlite, onPostgres] = await Promise.all([
			Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { MAX_IMPORT_BYTES: String(MAX_IMPORT_BYTES) } }),
			Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { DATABASE_URL: database.url } })
		]);
	});
	afterAll(async () => {
		await Promise.all([onSqlite?.stop(), onPostgres?.stop()]);
		await ollama?.close();
		await postgres?.stop();
	});

	const send = async (service: Service, body: Record<string, unknown>): Promise<string> => {
		const { conversation } = await (await ok(await service.post('/api/chat', body))).json();
		await followRun(service.url, conversation);
		return conversation;
	};
	const detail = async (service: Service, id: string): Promise<ConversationDetail> => (await service.fetch(`/api/conversations/${id}`)).json();

	it('round trips an edited conversation and a tool-calling one SQLite → PostgreSQL → SQLite, every view the same', async () => {
		const edited = await send(onSqlite, { message: 'first' });
		await send(onSqlite, { conversation: edited, message: 'second' });
		const [firstMessage] = (await detail(onSqlite, edited)).messages;
		await send(onSqlite, { conversation: edited, message: 'first, edited', editOf: firstMessage!.id });
		const tools = await send(onSqlite, { message: 'save a' });
		expect(effects()).toHaveLength(1);

		for (const id of [edited, tools]) {
			const before = await views(onSqlite, id);
			const bundle = await exportBundle(onSqlite, id);
			// Its own id on PostgreSQL, where it is free: every view reads the same.
			expect(await importBundle(onPostgres, bundle, '?keepId=true')).toBe(id);
			expect(await views(onPostgres, id)).toEqual(before);
			// Back to SQLite, where the original holds the id: a new one, with new run ids.
			const copy = await importBundle(onSqlite, await exportBundle(onPostgres, id));
			expect(copy).not.toBe(id);
			const after = await views(onSqlite, copy);
			const ids = new Map([[copy, id]]);
			after.runs.runs.forEach((run: { id: string }, i: number) => ids.set(run.id, before.runs.runs[i].id));
			expect(ids.size).toBe(1 + before.runs.runs.length);
			expect(withIdsReplaced(after, ids)).toEqual(before);
		}
		// The other version, chosen on the original and on its copy on PostgreSQL, reads the same on both.
		const older = (await detail(onSqlite, edited)).messages[0]!.versions!.ids[0]!;
		const switched = await Promise.all(
			[onSqlite, onPostgres].map(async (service) => (await ok(await service.post(`/api/conversations/${edited}/branch`, { messageId: older }))).json())
		);
		expect(switched[0].messages[0]).toMatchObject({ id: older, versions: { index: 0, count: 2 } });
		expect(switched[1]).toEqual(switched[0]);
		expect(await views(onPostgres, edited)).toEqual(await views(onSqlite, edited));
		expect(effects()).toHaveLength(1);
	});

	it('regenerating or editing on an imported conversation reuses the recorded outcome of its write instead of making it again', async () => {
		const made = effects().length;
		const original = await send(onPostgres, { message: 'save b' });
		expect(effects()).toHaveLength(made + 1);
		const copy = await importBundle(onSqlite, await exportBundle(onPostgres, original));
		const [, asked] = (await detail(onSqlite, copy)).messages;
		await send(onSqlite, { conversation: copy, regenerate: asked!.id });
		const done = await detail(onSqlite, copy);
		expect(done.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
		expect(done.messages[1]!.versions).toMatchObject({ count: 2 });
		expect(done.messages[2]).toMatchObject({ reusedFrom: { toolCallId: asked!.toolCalls![0]!.id, messageId: asked!.id } });
		expect(effects()).toHaveLength(made + 1);
		// An edit asking for the same write: a new branch from the first message, the write reused too.
		await send(onSqlite, { conversation: copy, message: 'save b again', editOf: done.messages[0]!.id });
		const edited = await detail(onSqlite, copy);
		expect(edited.messages.map((m) => [m.role, m.content])).toMatchObject([['user', 'save b again'], ['assistant', expect.anything()], ['tool', expect.anything()], ['assistant', expect.anything()]]);
		expect(edited.messages[0]!.versions).toMatchObject({ count: 2 });
		expect(edited.messages[2]).toMatchObject({ reusedFrom: { toolCallId: asked!.toolCalls![0]!.id } });
		expect(effects()).toHaveLength(made + 1);
	});

	it('refuses to export a conversation while a run writes it, and an unknown one', async () => {
		ollama.script = answerScript('Slow answer.', { hold: 'export', holdAfterChunks: 1 });
		try {
			const { conversation } = await (await ok(await onSqlite.post('/api/chat', { message: 'take your time' }))).json();
			await ollama.held('export');
			const busy = await onSqlite.fetch(`/api/conversations/${conversation}/export?format=bundle`);
			expect(busy.status).toBe(409);
			expect((await busy.json()).error).toMatchObject({ code: 'SESSION_IN_PROGRESS', message: expect.stringMatching(/once the run ends/) });
			ollama.release('export');
			await followRun(onSqlite.url, conversation);
			await exportBundle(onSqlite, conversation);
		} finally {
			ollama.script = script;
		}
		const unknown = await onSqlite.fetch('/api/conversations/00000000-0000-4000-8000-000000000000/export?format=bundle');
		expect(unknown.status).toBe(404);
	});

	it('refuses bad bundles with a 4xx naming the problem, creating nothing', async () => {
		const good = await exportBundle(onSqlite, await send(onSqlite, { message: 'save c' }));
		const before = await rowCounts(onSqlite);
		expect(before.lg_checkpoints).toBeGreaterThan(0);
		const changed = (change: (b: ConversationBundle) => void) => {
			const copy = structuredClone(good);
			change(copy);
			return copy;
		};
		const cases: [string, string | unknown, number, string, RegExp][] = [
			['not JSON', '{"format": ', 400, 'BAD_REQUEST', /must be JSON/],
			['not a bundle', { hello: 'world' }, 400, 'BAD_REQUEST', /expected \{"format": "sophos-conversation"/],
			['a newer format', { ...good, formatVersion: 2 }, 400, 'BAD_REQUEST', /format version 2 is newer than this Sophos reads \(1\)/],
			['malformed runs', { ...good, runs: 'none' }, 400, 'BAD_REQUEST', /runs: /],
			['an unknown field', { ...good, extra: 1 }, 400, 'BAD_REQUEST', /Not an importable bundle/],
			['a running run', changed((b) => ((b.runs[0] as { status: string }).status = 'running')), 400, 'BAD_REQUEST', /runs\.0\.status/],
			['a missing parent checkpoint', changed((b) => b.checkpoints.splice(1, 1)), 400, 'BAD_REQUEST', /follows checkpoint .*, which does not come before it/],
			['a missing branch head', changed((b) => (b.branch = { head: 'nowhere', switchedAfterRun: null })), 400, 'BAD_REQUEST', /branch head nowhere is not a checkpoint/],
			['a duplicate run', changed((b) => b.runs.push(b.runs[0]!)), 400, 'BAD_REQUEST', /run .* appears twice/],
			['a duplicate checkpoint', changed((b) => b.checkpoints.push(b.checkpoints.at(-1)!)), 400, 'BAD_REQUEST', /checkpoint .* appears twice/],
			['a journal entry of an unknown run', changed((b) => (b.journal[0]!.runId = 'other')), 400, 'BAD_REQUEST', /names run other, which the bundle does not hold/],
			[
				'an item past the end',
				changed((b) => (b.checkpoints.at(-1)!.values.messages = { items: [b.items.length] })),
				400,
				'BAD_REQUEST',
				/refers to item \d+, past the bundle's \d+ items/
			],
			[
				'a serialized secret',
				changed((b) => b.items.push({ lc: 1, type: 'secret', id: ['OLLAMA_HOST'] })),
				400,
				'BAD_REQUEST',
				/items\[\d+\] is a serialized "secret"/
			],
			['too large', { ...good, items: [...good.items, 'x'.repeat(MAX_IMPORT_BYTES)] }, 413, 'PAYLOAD_TOO_LARGE', /at most 262144 bytes/]
		];
		for (const [what, body, status, code, message] of cases) {
			const response = await onSqlite.fetch('/api/conversations/import', {
				method: 'POST',
				headers: { 'Content-Type': 'application/json' },
				body: typeof body === 'string' ? body : JSON.stringify(body)
			});
			const { error } = (await response.json()) as { error: { code: string; message: string } };
			expect({ what, status: response.status, code: error.code }).toEqual({ what, status, code });
			expect(error.message, what).toMatch(message);
		}
		const taken = await onSqlite.post('/api/conversations/import?keepId=true', good);
		expect(taken.status).toBe(409);
		expect((await taken.json()).error).toMatchObject({ code: 'CONVERSATION_EXISTS', message: expect.stringContaining(good.conversation.id) });
		const badQuery = await onSqlite.post('/api/conversations/import?keepId=yes', good);
		expect(badQuery.status).toBe(400);
		expect((await badQuery.json()).error.message).toMatch(/keepId/);
		expect(await rowCounts(onSqlite)).toEqual(before);
	});

	it("refuses, on either engine, to keep a free conversation id whose run ids are another conversation's (409 RUN_EXISTS), creating nothing", async () => {
		for (const service of [onSqlite, onPostgres]) {
			const original = await send(service, { message: 'save d' });
			const bundle = await exportBundle(service, original);
			// The bundle under a conversation id no one holds, its runs still the original's.
			const free = randomUUID();
			const moved = JSON.parse(JSON.stringify(bundle).split(original).join(free)) as ConversationBundle;
			const before = await views(service, original);
			const rows = await rowCounts(service);
			const refused = await service.post('/api/conversations/import?keepId=true', moved);
			expect(refused.status).toBe(409);
			expect((await refused.json()).error).toMatchObject({ code: 'RUN_EXISTS', message: expect.stringContaining(bundle.runs[0]!.id) });
			expect((await service.fetch(`/api/conversations/${free}`)).status).toBe(404);
			expect(await views(service, original)).toEqual(before);
			// Its checkpoints, put in the same transaction before the runs were refused, went with it.
			expect(await rowCounts(service)).toEqual(rows);
			// Under new ids it is welcome.
			expect(await importBundle(service, moved)).not.toBe(free);
		}
	});

	describe('a conversation waiting for approval', () => {
		const asking = testMcpConfig({});
		let askingSqlite: Service;
		let askingPostgres: Service;
		beforeAll(async () => {
			const database = await createTestDatabase(postgres.url(), 'bundle_approval');
			[askingSqlite, askingPostgres] = await Promise.all([
				Service.start({ ollamaUrl: ollama.url, configDir: asking.configDir }),
				Service.start({ ollamaUrl: ollama.url, configDir: asking.configDir, env: { DATABASE_URL: database.url } })
			]);
		});
		afterAll(async () => {
			await Promise.all([askingSqlite?.stop(), askingPostgres?.stop()]);
		});
		const asked = () => asking.calls().filter((l) => l.startsWith('effect'));

		it('waits on the other engine, and once approved there its write runs once', async () => {
			const waiting = await send(askingSqlite, { message: 'save e' });
			const original = (await detail(askingSqlite, waiting)) as ConversationDetail & { approvals: { toolCallId: string; tool: string }[] };
			expect(original.conversation.status).toBe('waiting');
			expect(original.approvals).toHaveLength(1);
			expect(asked()).toHaveLength(0);

			const bundle = await exportBundle(askingSqlite, waiting);
			expect(bundle.approvals).toMatchObject([{ toolCallId: original.approvals[0]!.toolCallId, decision: null }]);
			const copy = await importBundle(askingPostgres, bundle);
			const imported = (await detail(askingPostgres, copy)) as typeof original;
			expect(imported.conversation.status).toBe('waiting');
			expect(imported.approvals).toEqual(original.approvals);
			expect(asked()).toHaveLength(0);

			const decided = await askingPostgres.post('/api/chat', {
				conversation: copy,
				decisions: [{ toolCallId: imported.approvals[0]!.toolCallId, action: 'approve' }]
			});
			expect(decided.status, await decided.clone().text()).toBe(200);
			expect((await followRun(askingPostgres.url, copy)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
			const done = await detail(askingPostgres, copy);
			expect(done.conversation.status).not.toBe('waiting');
			expect(done.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
			expect(asked()).toHaveLength(1);
			// The original still waits, untouched by its copy's decision.
			expect((await detail(askingSqlite, waiting)).conversation.status).toBe('waiting');
		});
	});
});
