// The read side of the LangGraph Agent Server protocol, driven by LangGraph's own SDK (its current
// release and 1.0.0, the oldest agent-chat-ui resolves) against the built service: the assistant,
// threads made by either protocol, search and count as agent-chat-ui searches, state and history
// with branches (made through Sophos's own edit), the HITL interrupt, the token as x-api-key, CORS
// from a listed and an unlisted origin in a real browser, bad input and the 501s.

import { Client } from '@langchain/langgraph-sdk';
import { getBranchContext, getMessagesMetadataMap } from '@langchain/langgraph-sdk/ui';
import { Client as OldClient } from 'langgraph-sdk-1-0';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser } from '../support/browser';
import { PageServer } from '../support/page-server';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { readEvents } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

const TOKEN = 'protocol-test-token-0123456789';
const ASSISTANT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';

/** "save <item>" calls the test server's write, which asks for approval; anything else is answered. */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const save = /^save (\w+)/.exec(user);
	if (save && !after.some((m) => m.role === 'tool')) return { content: 'Saving.', toolCalls: [{ name: 'test__effect', arguments: { item: save[1] } }] };
	return { content: `Answer ${request.messages.length} to ${user}.` };
};

type Message = { type: string; id?: string; content: unknown };
type Values = { messages: Message[]; __interrupt__?: { id: string; value: Record<string, unknown> }[] };
const textsOf = (values: unknown) => (values as Values).messages.map((m) => `${m.type}: ${String(m.content)}`);

describe('the Agent Server protocol: assistants, threads, state and history', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let listed: PageServer;
	let unlisted: PageServer;
	let client: Client;
	let old: OldClient;
	const config = testMcpConfig({ approval: 'ask' });
	const auth = { Authorization: `Bearer ${TOKEN}` };
	const api = (path: string, init: RequestInit = {}) =>
		service.fetch(path, { ...init, headers: { ...auth, 'Content-Type': 'application/json', ...(init.headers as Record<string, string>) } });
	const post = (path: string, body: unknown) => api(path, { method: 'POST', body: typeof body === 'string' ? body : JSON.stringify(body) });
	/** Starts a Sophos run through its own API and reads its stream to the end. */
	const chat = async (body: Record<string, unknown>): Promise<{ conversation: string; status: unknown }> => {
		const res = await post('/api/chat', body);
		expect(res.status, await res.clone().text()).toBe(200);
		const { conversation } = await res.json();
		const events = await readEvents(await api(`/api/chat?conversation=${conversation}`));
		return { conversation, status: (events.at(-1)!.data as { status?: unknown }).status };
	};
	/** Everything a refused request must leave as it was: every thread, with its metadata and values. */
	const everything = async () => JSON.stringify(await (await post('/threads/search', { limit: 1000, sort_by: 'thread_id' })).json());

	beforeAll(async () => {
		[ollama, listed, unlisted] = await Promise.all([
			ScriptedOllama.start(script),
			PageServer.start({ '/': '<!doctype html><title>client</title>' }),
			PageServer.start({ '/': '<!doctype html><title>other</title>' })
		]);
		service = await Service.start({
			ollamaUrl: ollama.url,
			configDir: config.configDir,
			env: { SOPHOS_TOKEN: TOKEN, ALLOWED_ORIGINS: `http://${listed.host}` }
		});
		client = new Client({ apiUrl: service.url, apiKey: TOKEN });
		old = new OldClient({ apiUrl: service.url, apiKey: TOKEN });
	});
	afterAll(async () => {
		await service?.stop();
		await Promise.all([ollama?.close(), listed?.close(), unlisted?.close()]);
	});

	it('has one assistant, graph "agent", under the id LangGraph derives and under "agent"', async () => {
		for (const c of [client, old]) {
			const found = await c.assistants.search({ graphId: 'agent' });
			expect(found).toHaveLength(1);
			expect(found[0]).toMatchObject({ assistant_id: ASSISTANT_ID, graph_id: 'agent', name: 'agent', version: 1 });
			expect(await c.assistants.search({ graphId: 'other' })).toEqual([]);
			expect(await c.assistants.get('agent')).toEqual(found[0]);
			expect(await c.assistants.get(ASSISTANT_ID)).toEqual(found[0]);
		}
		expect(await client.assistants.search({ limit: 1, offset: 1 })).toEqual([]);
		const schemas = await client.assistants.getSchemas('agent');
		expect(schemas.graph_id).toBe('agent');
		expect(schemas.state_schema).toMatchObject({ properties: { messages: { type: 'array' } } });
		const graph = await client.assistants.getGraph(ASSISTANT_ID);
		expect(graph.nodes.map((n) => n.id)).toEqual(expect.arrayContaining(['__start__', 'agent', 'tools', '__end__']));
		expect(graph.edges).toContainEqual(expect.objectContaining({ source: 'tools', target: 'agent' }));
		await expect(client.assistants.get('someone-else')).rejects.toMatchObject({ status: 404 });
		expect((await (await service.fetch('/info', { headers: { 'x-api-key': TOKEN } })).json()).flags).toMatchObject({ assistants: true, crons: false });
	});

	it('makes, reads, patches and deletes threads, which are Sophos conversations both ways', async () => {
		const threadId = crypto.randomUUID();
		const made = await client.threads.create({ threadId, metadata: { owner: 'sdk', n: 1 } });
		expect(made).toMatchObject({ thread_id: threadId, status: 'idle', metadata: { owner: 'sdk', n: 1 }, values: { messages: [] }, interrupts: {} });
		await expect(client.threads.create({ threadId, metadata: { owner: 'again' } })).rejects.toMatchObject({ status: 409 });
		expect(await old.threads.create({ threadId, ifExists: 'do_nothing', metadata: { owner: 'again' } })).toEqual(made);
		const page = await (await api(`/api/conversations/${threadId}`)).json();
		expect(page.conversation).toMatchObject({ id: threadId, title: 'New Conversation', messageCount: 0, status: null });

		const patched = await client.threads.update(threadId, { metadata: { n: 2, extra: { deep: true } } });
		expect(patched.metadata).toEqual({ owner: 'sdk', n: 2, extra: { deep: true } });
		expect(await old.threads.get(threadId)).toEqual(patched);

		// A conversation Sophos's page made is a thread, labelled by its first message as agent-chat-ui does.
		const { conversation } = await chat({ message: 'hello from the page' });
		const thread = await client.threads.get(conversation);
		expect(thread).toMatchObject({ thread_id: conversation, status: 'idle', metadata: {} });
		expect(textsOf(thread.values)).toEqual(['human: hello from the page', 'ai: Answer 2 to hello from the page.']);
		const [human, ai] = (thread.values as Values).messages;
		const own = await (await api(`/api/conversations/${conversation}`)).json();
		expect([human!.id, ai!.id]).toEqual(own.messages.map((m: { id: string }) => m.id));
		expect(ai).toMatchObject({ type: 'ai', tool_calls: [], response_metadata: { model_name: 'ollama/qwen3' } });

		// The page can carry on a thread an SDK client made, which takes its first message as its title.
		await chat({ conversation: threadId, message: 'Named by its first message' });
		expect((await (await api(`/api/conversations/${threadId}`)).json()).conversation).toMatchObject({ title: 'Named by its first message', messageCount: 2 });
		expect(textsOf((await client.threads.get(threadId)).values)).toEqual([
			'human: Named by its first message',
			'ai: Answer 2 to Named by its first message.'
		]);

		await client.threads.delete(threadId);
		await expect(client.threads.get(threadId)).rejects.toMatchObject({ status: 404 });
		expect((await api(`/api/conversations/${threadId}`)).status).toBe(404);
		await expect(client.threads.delete(threadId)).rejects.toMatchObject({ status: 404 });
		await expect(client.threads.update(threadId, { metadata: {} })).rejects.toMatchObject({ status: 404 });
	});

	it('searches by metadata as agent-chat-ui does, by status, paged and sorted, and counts', async () => {
		const tag = crypto.randomUUID();
		const ids: string[] = [];
		// The SDK's create puts its `graphId` option in the metadata as graph_id.
		for (const [graphId, metadata] of [
			['agent', { tag }],
			[undefined, { tag, assistant_id: ASSISTANT_ID }],
			['agent', { tag, assistant_id: ASSISTANT_ID }],
			['other', { tag }]
		] as const) {
			ids.push((await client.threads.create({ metadata, ...(graphId ? { graphId } : {}) })).thread_id);
		}
		const found = (threads: { thread_id: string }[]) => threads.map((t) => t.thread_id);
		expect(found(await client.threads.search({ metadata: { tag, graph_id: 'agent' }, limit: 100 }))).toEqual([ids[2], ids[0]]);
		expect(found(await old.threads.search({ metadata: { tag, assistant_id: ASSISTANT_ID }, limit: 100 }))).toEqual([ids[2], ids[1]]);
		expect(found(await client.threads.search({ metadata: { tag }, sortBy: 'created_at', sortOrder: 'asc', limit: 2, offset: 1 }))).toEqual([ids[1], ids[2]]);
		expect(found(await client.threads.search({ metadata: { tag }, status: 'idle', limit: 100 }))).toHaveLength(4);
		expect(await client.threads.search({ metadata: { tag }, status: 'busy' })).toEqual([]);
		expect(await client.threads.search({ metadata: { tag }, select: ['thread_id', 'status'], limit: 1 })).toEqual([{ thread_id: ids[3], status: 'idle' }]);
		expect(await client.threads.count({ metadata: { tag } })).toBe(4);
		expect(await client.threads.count({ metadata: { tag, graph_id: 'agent' }, status: 'idle' })).toBe(2);
		expect(await client.threads.count({ metadata: { tag }, status: 'error' })).toBe(0);
	});

	it('gives state and every branch\'s history, which the SDK\'s branch context reads as two versions', async () => {
		const { conversation: threadId } = await chat({ message: 'one' });
		await chat({ conversation: threadId, message: 'two' });
		const before = await client.threads.getState(threadId);
		expect(textsOf(before.values)).toEqual(['human: one', 'ai: Answer 2 to one.', 'human: two', 'ai: Answer 4 to two.']);
		const two = (before.values as Values).messages[2]!;
		await chat({ conversation: threadId, message: 'dos', editOf: two.id });

		const state = await client.threads.getState(threadId);
		expect(textsOf(state.values)).toEqual(['human: one', 'ai: Answer 2 to one.', 'human: dos', 'ai: Answer 4 to dos.']);
		expect(state).toMatchObject({ next: [], tasks: [], checkpoint: { thread_id: threadId, checkpoint_ns: '' } });
		expect(state.parent_checkpoint?.checkpoint_id).toBeTruthy();

		const history = await client.threads.getHistory(threadId, { limit: 100 });
		const ids = history.map((s) => s.checkpoint.checkpoint_id!);
		expect([...ids].sort().reverse()).toEqual(ids);
		expect(ids[0]).toBe(state.checkpoint.checkpoint_id);
		expect(history[0]!.values).toEqual(state.values);
		for (const s of history.slice(0, -1)) expect(ids).toContain(s.parent_checkpoint?.checkpoint_id);
		expect(history.at(-1)!.parent_checkpoint).toBeNull();
		const tips = history.filter((s) => !history.some((o) => o.parent_checkpoint?.checkpoint_id === s.checkpoint.checkpoint_id));
		expect(tips.map((s) => textsOf(s.values).at(-2))).toEqual(['human: dos', 'human: two']);

		const context = getBranchContext('', history as never);
		const metadata = getMessagesMetadataMap({
			initialValues: undefined,
			history: history as never,
			getMessages: (values: unknown) => (values as Values).messages as never,
			branchContext: context
		});
		const edited = metadata.find((m) => m.messageId === (state.values as Values).messages[2]!.id);
		expect(edited?.branchOptions).toHaveLength(2);

		// One branch's history: the old one, from its tip down.
		const oldTip = tips[1]!.checkpoint.checkpoint_id!;
		const at = (checkpoint_id: string) => ({ thread_id: threadId, checkpoint_ns: '', checkpoint_id, checkpoint_map: null });
		const oldBranch = await client.threads.getHistory(threadId, { limit: 100, checkpoint: at(oldTip) });
		expect(oldBranch[0]!.checkpoint.checkpoint_id).toBe(oldTip);
		expect(oldBranch.every((s) => !textsOf(s.values).includes('human: dos'))).toBe(true);
		const paged = await old.threads.getHistory(threadId, { limit: 2, before: { configurable: { checkpoint_id: ids[1] } } });
		expect(paged.map((s) => s.checkpoint.checkpoint_id)).toEqual(ids.slice(2, 4));
		const byId = await post(`/threads/${threadId}/history`, { limit: 1, before: ids[2] });
		expect((await byId.json()).map((s: { checkpoint: { checkpoint_id: string } }) => s.checkpoint.checkpoint_id)).toEqual([ids[3]]);

		// The state at a checkpoint, as the SDK asks for it by config and by id.
		expect((await client.threads.getState(threadId, at(oldTip))).values).toEqual(tips[1]!.values);
		expect((await client.threads.getState(threadId, oldTip)).values).toEqual(tips[1]!.values);
		await expect(client.threads.getState(threadId, at('no-such-checkpoint'))).rejects.toMatchObject({ status: 404 });
		await expect(client.threads.getHistory(threadId, { checkpoint: at('no-such-checkpoint') })).rejects.toMatchObject({ status: 404 });
		await expect(client.threads.getState(crypto.randomUUID())).rejects.toMatchObject({ status: 404 });
	});

	it("shows a pause for approval as an interrupt in the HITL schema, in the thread's interrupts and tasks, never in its values", async () => {
		const { conversation: threadId, status } = await chat({ message: 'save alpha' });
		expect(status).toBe('waiting');
		const thread = await client.threads.get(threadId);
		expect(thread.status).toBe('interrupted');
		expect(thread.values as Values).not.toHaveProperty('__interrupt__');
		const interrupt = (Object.values(thread.interrupts) as NonNullable<Values['__interrupt__']>[])[0]![0]!;
		expect(interrupt.value).toMatchObject({
			action_requests: [{ name: 'test__effect', args: { item: 'alpha' } }],
			actionRequests: [{ name: 'test__effect', args: { item: 'alpha' } }],
			review_configs: [{ action_name: 'test__effect', allowed_decisions: ['approve', 'edit', 'reject'] }],
			reviewConfigs: [{ actionName: 'test__effect', allowedDecisions: ['approve', 'edit', 'reject'] }]
		});
		expect(Object.values(thread.interrupts)).toHaveLength(1);
		const state = await client.threads.getState(threadId);
		expect(state.next).toEqual(['tools']);
		expect(state.tasks).toMatchObject([{ name: 'tools', interrupts: [interrupt] }]);
		expect(state.values).toEqual(thread.values);
		const [newest] = await client.threads.getHistory(threadId, { limit: 1 });
		expect(newest!.tasks).toMatchObject([{ name: 'tools', interrupts: [interrupt] }]);
		expect((await client.threads.search({ status: 'interrupted', limit: 100 })).map((t) => t.thread_id)).toContain(threadId);
	});

	it('takes the token as x-api-key as it takes Bearer, and asks for it everywhere but /ok', async () => {
		const search = (headers: Record<string, string>) => service.fetch('/threads/search', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: '{}' });
		expect((await search({})).status).toBe(401);
		expect((await search({ 'x-api-key': 'wrong-token-wrong-token' })).status).toBe(401);
		expect((await search({ 'x-api-key': TOKEN })).status).toBe(200);
		expect((await search(auth)).status).toBe(200);
		expect((await service.fetch('/info')).status).toBe(401);
		expect(await (await service.fetch('/ok')).json()).toEqual({ ok: true });
		await expect(new Client({ apiUrl: service.url, apiKey: 'wrong-token-wrong-token' }).threads.search()).rejects.toMatchObject({ status: 401 });
	});

	it('answers a CORS preflight and reads for a listed origin, refuses an unlisted one, in a real browser too', async () => {
		const preflight = (origin: string) =>
			service.fetch('/threads', {
				method: 'OPTIONS',
				headers: { Origin: origin, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type,x-api-key' }
			});
		const ok = await preflight(`http://${listed.host}`);
		expect(ok.status).toBe(204);
		expect(Object.fromEntries([...ok.headers].filter(([k]) => k.startsWith('access-control-')))).toEqual({
			'access-control-allow-origin': `http://${listed.host}`,
			'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
			'access-control-allow-headers': 'content-type, x-api-key, authorization, last-event-id',
			'access-control-expose-headers': 'Content-Location, Location',
			'access-control-max-age': '600'
		});
		expect((await preflight(`http://${unlisted.host}`)).status).toBe(403);
		// Sophos's own API stays same-origin.
		const own = await service.fetch('/api/conversations', { headers: { ...auth, Origin: `http://${listed.host}` } });
		expect(own.headers.get('access-control-allow-origin')).toBeNull();

		const state = await everything();
		let browser: Browser | undefined;
		try {
			browser = await launchBrowser();
			const tryFrom = async (page: PageServer) => {
				const tab = await browser!.newPage();
				await tab.goto(page.url('/'));
				return tab.evaluate(
					async ([url, token]) => {
						try {
							const res = await fetch(`${url}/threads`, {
								method: 'POST',
								headers: { 'Content-Type': 'application/json', 'x-api-key': token! },
								body: JSON.stringify({ metadata: { from: 'browser' } })
							});
							return { status: res.status, body: await res.json() };
						} catch (e) {
							return { failed: String(e) };
						}
					},
					[service.url, TOKEN]
				);
			};
			const refused = await tryFrom(unlisted);
			expect(refused).toHaveProperty('failed');
			expect(await everything()).toBe(state);
			const allowed = await tryFrom(listed);
			expect(allowed).toMatchObject({ status: 200, body: { metadata: { from: 'browser' }, status: 'idle' } });
		} finally {
			await browser?.close();
		}
	});

	it('refuses bad input with 422 naming the field, and changes nothing', async () => {
		const threadId = (await client.threads.create({ metadata: { keep: true } })).thread_id;
		const state = await everything();
		const cases: [string, string, unknown, string][] = [
			['POST', '/threads', { thread_id: 'not-a-uuid' }, 'thread_id'],
			['POST', '/threads', { metadata: 5 }, 'metadata'],
			['POST', '/threads', { if_exists: 'update' }, 'if_exists'],
			['POST', '/threads', { threadId: crypto.randomUUID() }, 'threadId'],
			['PATCH', `/threads/${threadId}`, { metadata: ['a'] }, 'metadata'],
			['PATCH', '/threads/nope', { metadata: {} }, 'thread_id'],
			['GET', '/threads/nope', undefined, 'thread_id'],
			['DELETE', '/threads/nope', undefined, 'thread_id'],
			['POST', '/threads/search', { limit: 0 }, 'limit'],
			['POST', '/threads/search', { status: 'sleeping' }, 'status'],
			['POST', '/threads/search', { sort_by: 'title' }, 'sort_by'],
			['POST', '/threads/search', { ids: ['x'] }, 'ids.0'],
			['POST', '/threads/count', { status: 1 }, 'status'],
			['GET', '/threads/nope/state', undefined, 'thread_id'],
			['POST', `/threads/${threadId}/state/checkpoint`, {}, 'checkpoint'],
			['POST', `/threads/${threadId}/state/checkpoint`, { checkpoint: { checkpoint_id: 5 } }, 'checkpoint.checkpoint_id'],
			['POST', `/threads/${threadId}/history`, { limit: -1 }, 'limit'],
			['POST', `/threads/${threadId}/history`, { before: 7 }, 'before'],
			['POST', '/assistants/search', { limit: 'ten' }, 'limit'],
			['POST', '/assistants/search', { graph: 'agent' }, 'graph'],
			['POST', '/assistants/count', { metadata: 'x' }, 'metadata']
		];
		for (const [method, path, body, field] of cases) {
			const res = await api(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
			const what = `${method} ${path} ${JSON.stringify(body)}`;
			expect(res.status, what).toBe(422);
			const { error } = await res.json();
			expect(error.code, what).toBe('VALIDATION_FAILED');
			expect(error.message, what).toContain(`"${field}"`);
		}
		const notJson = await api('/threads', { method: 'POST', body: '{"metadata":' });
		expect(notJson.status).toBe(400);
		expect(await everything()).toBe(state);
	});

	it('answers 501 with a clear body for what Sophos does not do, and changes nothing', async () => {
		const threadId = (await client.threads.create()).thread_id;
		const state = await everything();
		const cases: [string, string, unknown][] = [
			['POST', `/threads/${threadId}/state`, { values: { messages: [] } }],
			['PATCH', `/threads/${threadId}/state`, { metadata: {} }],
			['POST', '/threads', { supersteps: [{ updates: [] }] }],
			['POST', '/threads', { ttl: { ttl: 5, strategy: 'delete' } }],
			['PATCH', `/threads/${threadId}`, { ttl: 5 }],
			['POST', '/threads/search', { values: { a: 1 } }],
			['POST', '/threads/count', { values: { a: 1 } }],
			['POST', '/threads/prune', { thread_ids: [threadId] }],
			['POST', `/threads/${threadId}/copy`, {}],
			['POST', '/runs/crons/search', {}],
			['POST', '/runs/crons', {}],
			['POST', `/threads/${threadId}/runs/crons`, {}],
			['PUT', '/store/items', { namespace: ['a'], key: 'k', value: {} }],
			['POST', '/store/items/search', {}],
			['POST', '/assistants', { graph_id: 'agent' }],
			['PATCH', '/assistants/agent', { name: 'x' }],
			['DELETE', '/assistants/agent', undefined],
			['POST', '/assistants/agent/versions', {}]
		];
		for (const [method, path, body] of cases) {
			const res = await api(path, { method, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
			const what = `${method} ${path}`;
			expect(res.status, what).toBe(501);
			const { error } = await res.json();
			expect(error.code, what).toBe('NOT_IMPLEMENTED');
			expect(error.message, what).toMatch(/not supported by Sophos/);
		}
		await expect(client.crons.search()).rejects.toMatchObject({ status: 501 });
		await expect(client.threads.updateState(threadId, { values: {} })).rejects.toMatchObject({ status: 501 });
		expect(await everything()).toBe(state);
	});
});
