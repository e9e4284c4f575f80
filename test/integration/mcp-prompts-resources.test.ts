// MCP prompts and resources through the built service: the misbehaving test server (a stdio child)
// with its prompts, notes, sized and binary resources, and the MCP SDK's own example server over
// Streamable HTTP; the model is the scripted Ollama.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { OAuthServer, oauthConfig } from '../support/oauth-servers';
import type { Script } from '../support/model-script';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service, serviceState } from '../support/service';
import { followRun } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

const CAP = 1_000;
const WELCOME = '<resource server="test" uri="test://notes/welcome">\nWelcome to the test notes.\n</resource>';

/** "add <name>" adds a note quietly, "announce" says the lists changed; anything else is answered. */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	if (after.some((m) => m.role === 'tool')) return { content: 'Done.' };
	const add = /^add (\w+)$/.exec(user);
	if (add) return { toolCalls: [{ name: 'test__add_note', arguments: { name: add[1]!, text: `The ${add[1]} note.` } }] };
	if (user === 'announce') return { toolCalls: [{ name: 'test__announce_changes', arguments: {} }] };
	return { content: 'Read it.' };
};

async function send(service: Service, body: Record<string, unknown>): Promise<string> {
	const started = await service.post('/api/chat', body);
	expect(started.status).toBe(200);
	const { conversation } = await started.json();
	expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
	return conversation;
}

const json = async (service: Service, path: string) => (await service.fetch(path)).json();

describe('MCP prompts and resources', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script);
		// Beside the test server, one that dies at start: its prompts and resources are unavailable, not an error of the list.
		const { configDir } = testMcpConfig();
		const file = path.join(configDir, 'mcp.json');
		const servers = JSON.parse(fs.readFileSync(file, 'utf8'));
		fs.writeFileSync(file, JSON.stringify({ ...servers, broken: { command: process.execPath, args: ['-e', 'process.exit(3)'] } }));
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { MCP_CONTENT_MAX_CHARS: String(CAP) } });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('lists every server’s prompts as server__prompt with their arguments', async () => {
		const list = await json(service, '/api/mcp/prompts');
		expect(list.unavailable).toEqual([{ server: 'broken', message: 'MCP server "broken" is not running; it is started again on its next use' }]);
		const ours = list.prompts.filter((p: { server: string }) => p.server === 'test');
		expect(ours).toEqual([
			{
				name: 'test__review',
				server: 'test',
				prompt: 'review',
				title: 'Review',
				description: 'Asks for a review of a topic.',
				arguments: [{ name: 'topic', description: 'What to review', required: true }, { name: 'tone' }]
			},
			{ name: 'test__hello', server: 'test', prompt: 'hello', description: 'Takes no arguments.', arguments: [] },
			{ name: 'test__huge', server: 'test', prompt: 'huge', description: 'Gives `size` characters.', arguments: [{ name: 'size', required: true }] }
		]);
	});

	it('gives a prompt’s messages for its arguments', async () => {
		const answer = await service.post('/api/mcp/prompts/test__review', { arguments: { topic: 'the plan', tone: 'kind' } });
		expect(answer.status).toBe(200);
		expect(await answer.json()).toEqual({
			name: 'test__review',
			messages: [
				{ role: 'user', text: 'Please review the plan in a kind tone.' },
				{ role: 'assistant', text: 'I will start with the overall structure.' }
			]
		});
		const hello = await service.post('/api/mcp/prompts/test__hello', {});
		expect((await hello.json()).messages).toEqual([{ role: 'user', text: 'Say hello.' }]);
	});

	it.each([
		['an unknown server', 'nosuch__review', { arguments: { topic: 'x' } }, 404, 'NOT_FOUND', /No MCP server is named by the prompt "nosuch__review"/],
		['a name without a server', 'review', {}, 400, 'BAD_REQUEST', /expected server__prompt/],
		['a name with a control character', 'test__rev%0Aiew', {}, 400, 'BAD_REQUEST', /expected server__prompt/],
		['an unknown prompt', 'test__nosuch', {}, 404, 'NOT_FOUND', /"test" has no prompt "nosuch"/],
		['a required argument left out', 'test__review', { arguments: { tone: 'kind' } }, 400, 'BAD_REQUEST', /needs the argument "topic"/],
		['a blank required argument', 'test__review', { arguments: { topic: '  ' } }, 400, 'BAD_REQUEST', /needs the argument "topic"/],
		['an argument it does not take', 'test__hello', { arguments: { who: 'me' } }, 400, 'BAD_REQUEST', /takes no argument "who"/],
		['an argument that is not a string', 'test__review', { arguments: { topic: 3 } }, 400, 'BAD_REQUEST', /"arguments.topic"/],
		['an unknown body key', 'test__hello', { args: {} }, 400, 'BAD_REQUEST', /"args"/],
		['a body that is not JSON', 'test__hello', 'nope', 400, 'BAD_REQUEST', /must be JSON/],
		['a server that is down', 'broken__review', {}, 503, 'MCP_SERVER_UNAVAILABLE', /"broken" is not running/],
		['messages over MCP_CONTENT_MAX_CHARS', 'test__huge', { arguments: { size: String(CAP + 1) } }, 413, 'MCP_CONTENT_TOO_LARGE', /1001 characters, more than MCP_CONTENT_MAX_CHARS \(1000\)/]
	])('refuses %s, changing nothing', async (_, name, body, status, code, message) => {
		const before = await serviceState(service, []);
		const answer = await service.post(`/api/mcp/prompts/${name}`, body);
		expect(answer.status).toBe(status);
		const { error } = await answer.json();
		expect(error.code).toBe(code);
		expect(error.message).toMatch(message);
		expect(await serviceState(service, [])).toBe(before);
	});

	it('lists resources and resource templates by server, and reads a text resource', async () => {
		const list = await json(service, '/api/mcp/resources');
		expect(list.unavailable.map((u: { server: string }) => u.server)).toEqual(['broken']);
		const ours = list.servers.find((s: { server: string }) => s.server === 'test');
		expect(ours.resources).toEqual(
			expect.arrayContaining([
				{ uri: 'test://logo.png', name: 'logo', description: 'A binary resource.', mimeType: 'image/png' },
				{ uri: 'test://notes/welcome', name: 'welcome', description: 'A note, by name.', mimeType: 'text/plain' }
			])
		);
		expect(ours.templates).toEqual([
			{ uriTemplate: 'test://notes/{name}', name: 'note', description: 'A note, by name.', mimeType: 'text/plain' },
			{ uriTemplate: 'test://sized/{size}', name: 'sized', description: '`size` characters of z.' }
		]);
		const read = await service.fetch(`/api/mcp/resources/read?server=test&uri=${encodeURIComponent('test://notes/welcome')}`);
		expect(read.status).toBe(200);
		expect(await read.json()).toEqual({
			server: 'test',
			uri: 'test://notes/welcome',
			contents: [{ uri: 'test://notes/welcome', mimeType: 'text/plain', text: 'Welcome to the test notes.' }]
		});
		const atCap = await json(service, `/api/mcp/resources/read?server=test&uri=${encodeURIComponent(`test://sized/${CAP}`)}`);
		expect(atCap.contents[0].text).toBe('z'.repeat(CAP));
	});

	it.each([
		['an unknown server', 'server=nosuch&uri=test%3A%2F%2Fnotes%2Fwelcome', 404, 'NOT_FOUND', /No MCP server is named "nosuch"/],
		['a malformed server name', 'server=a.b&uri=test%3A%2F%2Fx', 400, 'BAD_REQUEST', /"server"/],
		['no uri', 'server=test', 400, 'BAD_REQUEST', /"uri"/],
		['a uri that is not absolute', 'server=test&uri=notes%2Fwelcome', 400, 'BAD_REQUEST', /expected an absolute URI/],
		['a uri too long', `server=test&uri=test%3A%2F%2F${'a'.repeat(2_100)}`, 400, 'BAD_REQUEST', /"uri"/],
		['a repeated parameter', 'server=test&server=test&uri=test%3A%2F%2Fnotes%2Fwelcome', 400, 'BAD_REQUEST', /once each/],
		['an unknown parameter', 'server=test&uri=test%3A%2F%2Fnotes%2Fwelcome&as=raw', 400, 'BAD_REQUEST', /"as"/],
		['a server that is down', 'server=broken&uri=test%3A%2F%2Fx', 503, 'MCP_SERVER_UNAVAILABLE', /"broken" is not running/],
		['a resource the server does not have', 'server=test&uri=test%3A%2F%2Fnotes%2Fnosuch', 404, 'NOT_FOUND', /test:\/\/notes\/nosuch not found/],
		['a binary resource', 'server=test&uri=test%3A%2F%2Flogo.png', 415, 'MCP_CONTENT_NOT_TEXT', /binary \(image\/png\)/],
		['a resource over MCP_CONTENT_MAX_CHARS', `server=test&uri=test%3A%2F%2Fsized%2F${CAP + 1}`, 413, 'MCP_CONTENT_TOO_LARGE', /1001 characters/]
	])('refuses to read %s', async (_, query, status, code, message) => {
		const answer = await service.fetch(`/api/mcp/resources/read?${query}`);
		expect(answer.status).toBe(status);
		const { error } = await answer.json();
		expect(error.code).toBe(code);
		expect(error.message).toMatch(message);
	});

	it('refuses a message whose attachment cannot be read, and starts nothing', async () => {
		const attach = (server: string, uri: string) => ({ message: 'Look at this', attachments: [{ server, uri }] });
		const cases: [unknown, number, string][] = [
			[attach('nosuch', 'test://notes/welcome'), 404, 'NOT_FOUND'],
			[attach('test', 'test://notes/nosuch'), 404, 'NOT_FOUND'],
			[attach('broken', 'test://notes/welcome'), 503, 'MCP_SERVER_UNAVAILABLE'],
			[attach('test', 'test://logo.png'), 415, 'MCP_CONTENT_NOT_TEXT'],
			[attach('test', `test://sized/${CAP + 1}`), 413, 'MCP_CONTENT_TOO_LARGE'],
			[attach('test', 'not a uri'), 400, 'BAD_REQUEST'],
			[{ message: 'x', attachments: [] }, 400, 'BAD_REQUEST'],
			[{ message: 'x', attachments: [{ server: 'test', uri: 'test://notes/welcome', extra: 1 }] }, 400, 'BAD_REQUEST'],
			[{ message: 'x', attachments: Array.from({ length: 9 }, () => ({ server: 'test', uri: 'test://notes/welcome' })) }, 400, 'BAD_REQUEST'],
			[{ ...attach('test', 'test://notes/welcome'), message: '  ' }, 400, 'BAD_REQUEST']
		];
		const before = await serviceState(service, []);
		for (const [body, status, code] of cases) {
			const answer = await service.post('/api/chat', body);
			expect(answer.status, JSON.stringify(body)).toBe(status);
			expect((await answer.json()).error.code).toBe(code);
		}
		expect(await serviceState(service, [])).toBe(before);
	});

	it('refuses attachments on anything but a new message', async () => {
		const conversation = await send(service, { message: 'hello' });
		const before = await serviceState(service, [conversation]);
		const attachments = [{ server: 'test', uri: 'test://notes/welcome' }];
		const { messages } = await json(service, `/api/conversations/${conversation}`);
		for (const body of [
			{ conversation, resume: true, attachments },
			{ conversation, cancel: true, attachments },
			{ conversation, regenerate: messages[1].id, attachments },
			{ conversation, editOf: messages[0].id, message: 'again', attachments }
		]) {
			const answer = await service.post('/api/chat', body);
			expect(answer.status, JSON.stringify(body)).toBe(400);
			expect((await answer.json()).error.message).toMatch(/attached to a new message only/);
		}
		expect(await serviceState(service, [conversation])).toBe(before);
	});

	it('keeps its paths apart from a server’s sign-in paths', async () => {
		// /api/mcp/prompts/<name> is a prompt, never the server "prompts" (mcp.json may not name one so).
		const signOut = await service.post('/api/mcp/prompts/sign-out', {});
		expect(signOut.status).toBe(400);
		expect((await signOut.json()).error.message).toMatch(/expected server__prompt/);
		expect((await service.fetch('/api/mcp/prompts/test__hello')).status).toBe(405);
		expect((await service.fetch('/api/mcp/resources/sign-in', { redirect: 'manual' })).status).toBe(404);
		expect((await service.post('/api/mcp/resources', {})).status).toBe(405);
	});

	it('follows list_changed: a quiet change stays unseen, an announced one is listed', async () => {
		const notes = async () =>
			(await json(service, '/api/mcp/resources')).servers
				.find((s: { server: string }) => s.server === 'test')
				.resources.map((r: { uri: string }) => r.uri)
				.filter((uri: string) => uri.startsWith('test://notes/'));
		const prompts = async () => (await json(service, '/api/mcp/prompts')).prompts.map((p: { name: string }) => p.name);
		expect(await notes()).toEqual(['test://notes/welcome']);
		expect(await prompts()).not.toContain('test__added');
		await send(service, { message: 'add later' });
		// The server said nothing: the list is the one read before.
		expect(await notes()).toEqual(['test://notes/welcome']);
		await send(service, { message: 'announce' });
		expect(await notes()).toEqual(['test://notes/welcome', 'test://notes/later']);
		expect(await prompts()).toContain('test__added');
	});
});

describe('an attached resource', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('enters the thread as the message’s text, is what the model is sent, and is in the checkpoint after a restart', async () => {
		ollama = await ScriptedOllama.start(script);
		service = await Service.start({ ollamaUrl: ollama.url, configDir: testMcpConfig().configDir });
		const conversation = await send(service, { message: 'Summarize this', attachments: [{ server: 'test', uri: 'test://notes/welcome' }] });
		const expected = `Summarize this\n\n${WELCOME}`;
		expect(ollama.requests.at(-1)!.messages.filter((m) => m.role === 'user').map((m) => m.content)).toEqual([expected]);
		const user = async (s: Service) => (await json(s, `/api/conversations/${conversation}`)).messages[0];
		expect(await user(service)).toMatchObject({ role: 'user', content: expected });
		expect((await json(service, `/api/conversations/${conversation}/runs`)).runs[0].input).toBe(expected);

		await service.kill();
		service = await service.restart();
		expect(await user(service)).toMatchObject({ role: 'user', content: expected });
		const history = await (await service.fetch(`/api/conversations/${conversation}/export?format=jsonl`)).text();
		const first = history.trim().split('\n').map((line) => JSON.parse(line)).find((c) => c.last_message?.role === 'user');
		expect(first.last_message.content).toBe(expected);
	});
});

describe('an attached resource from an untrusted server', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await ollama?.close();
	});

	/** "save it": one write, then the answer. */
	const saves: Script = (request) => {
		const { user, after } = currentTurn(request);
		if (after.some((m) => m.role === 'tool') || !user.startsWith('save it')) return { content: 'Done.' };
		return { toolCalls: [{ name: 'test__effect', arguments: { item: 'a' } }] };
	};
	const approvals = async (s: Service, conversation: string) =>
		((await json(s, `/api/conversations/${conversation}`)).approvals as { tool: string; reason: { kind: string; message: string } }[]).map(
			(a) => ({ tool: a.tool, ...a.reason })
		);
	const held = { tool: 'test__effect', kind: 'policy', message: expect.stringContaining('content from outside (from web resource test://page') };

	it('is untrusted content: with UNTRUSTED_CONTENT_WRITES=ask a write after it asks, after a restart too; a trusted server’s does not', async () => {
		ollama = await ScriptedOllama.start(saves);
		// The test server again as `web`, not trusted, writing to the same call log.
		const { configDir, calls } = testMcpConfig();
		const file = path.join(configDir, 'mcp.json');
		const servers = JSON.parse(fs.readFileSync(file, 'utf8'));
		fs.writeFileSync(file, JSON.stringify({ ...servers, web: { ...servers.test, trusted: false } }));
		service = await Service.start({ ollamaUrl: ollama.url, configDir, env: { UNTRUSTED_CONTENT_WRITES: 'ask' } });
		const page = (server: string) => [{ server, uri: 'test://page' }];

		await send(service, { message: 'save it', attachments: page('test') });
		expect(calls()).toEqual([expect.stringMatching(/^effect .* a$/)]);

		const conversation = await send(service, { message: 'save it', attachments: page('web') });
		expect(await approvals(service, conversation)).toEqual([held]);

		// What the thread holds decides, not what the process remembers: the next message asks again.
		await service.kill();
		service = await service.restart();
		const next = await service.post('/api/chat', { conversation, message: 'save it again' });
		expect(next.status).toBe(200);
		expect((await followRun(service.url, conversation)).at(-1)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		expect(await approvals(service, conversation)).toEqual([held]);
		expect(calls()).toHaveLength(1);
	});
});

describe('the MCP SDK’s example server over Streamable HTTP', () => {
	let example: OAuthServer | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await example?.close();
	});

	it('lists and gets its prompt, lists and reads its resources', async () => {
		example = await OAuthServer.sdkExample({ oauth: false });
		service = await Service.start({ ollamaUrl: 'http://127.0.0.1:9', configDir: oauthConfig({ example: { url: example.url } }) });
		const { prompts } = await json(service, '/api/mcp/prompts');
		expect(prompts).toContainEqual({
			name: 'example__greeting-template',
			server: 'example',
			prompt: 'greeting-template',
			title: 'Greeting Template',
			description: 'A simple greeting prompt template',
			arguments: [{ name: 'name', description: 'Name to include in greeting', required: true }]
		});
		const got = await service.post('/api/mcp/prompts/example__greeting-template', { arguments: { name: 'Ada' } });
		expect((await got.json()).messages).toEqual([{ role: 'user', text: 'Please greet Ada in a friendly manner.' }]);
		const missing = await service.post('/api/mcp/prompts/example__greeting-template', {});
		expect(missing.status).toBe(400);

		const { servers } = await json(service, '/api/mcp/resources');
		expect(servers[0].resources.map((r: { uri: string }) => r.uri)).toEqual(
			expect.arrayContaining(['https://example.com/greetings/default', 'file:///example/file1.txt'])
		);
		const read = await json(service, `/api/mcp/resources/read?server=example&uri=${encodeURIComponent('https://example.com/greetings/default')}`);
		expect(read.contents).toEqual([{ uri: 'https://example.com/greetings/default', text: 'Hello, world!' }]);
	});
});
