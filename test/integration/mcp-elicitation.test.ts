// MCP elicitation: a tool server asks the person during a call. Against the MCP SDK's own example
// server over Streamable HTTP (its collect-user-info tool) and the repo's stdio test server (its
// ask tools): answered, declined, timed out, refused answers, a URL question the server completes,
// and a SIGKILL while the question waits.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../support/model-script';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { freePort, ROOT, Service, tempDir } from '../support/service';
import { openServiceDb } from '../support/service-db';
import { sseMessages, type SseEvent } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

type Question = { id: string; run: string; server: string; tool: string; message: string; mode: string; requestedSchema?: unknown; url?: string; expiresAt: string };
type Message = { role: string; name?: string; status?: string; content: string };

/** The SDK's example server, without --oauth, on a free port. */
async function exampleServer(): Promise<{ url: string; child: ChildProcess }> {
	const port = await freePort();
	const child = spawn(process.execPath, ['node_modules/@modelcontextprotocol/sdk/dist/esm/examples/server/simpleStreamableHttp.js'], {
		cwd: ROOT,
		env: { PATH: process.env.PATH, MCP_PORT: String(port) },
		stdio: ['ignore', 'pipe', 'pipe']
	});
	await new Promise<void>((resolve, reject) => {
		let output = '';
		child.stdout!.on('data', (chunk: Buffer) => {
			output += chunk.toString();
			if (output.includes('listening on port')) resolve();
		});
		child.once('exit', () => reject(new Error(`example server exited:\n${output}`)));
	});
	return { url: `http://localhost:${port}/mcp`, child };
}

/** The user's message names the tool call to make: "feedback" (the example server), "elsewhere" or "ask" (the test server). */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	if (after.some((m) => m.role === 'tool')) return { content: 'Thanks.' };
	if (user.startsWith('feedback')) return { toolCalls: [{ name: 'demo__collect-user-info', arguments: { infoType: 'feedback' } }] };
	if (user.startsWith('elsewhere')) return { toolCalls: [{ name: 'test__ask_url_elsewhere', arguments: {} }] };
	return { toolCalls: [{ name: 'test__ask', arguments: {} }] };
};

/** Starts a run and reads its stream up to the question; `rest` reads on to the end. */
async function askedQuestion(service: Service, message: string) {
	const { conversation } = await (await service.post('/api/chat', { message })).json();
	const stream = sseMessages(await fetch(`${service.url}/api/chat?conversation=${conversation}`));
	const seen: SseEvent[] = [];
	for (;;) {
		const { value, done } = await stream.next();
		if (done) throw new Error(`the run ended without a question: ${JSON.stringify(seen)}`);
		seen.push(value);
		if (value.event === 'elicitation') break;
	}
	const question = (seen.at(-1)!.data as { elicitation: Question }).elicitation;
	const rest = async () => {
		for await (const e of { [Symbol.asyncIterator]: () => stream }) seen.push(e);
		return seen;
	};
	return { conversation: conversation as string, question, rest };
}

const answer = (service: Service, run: string, id: string, body: unknown) => service.post(`/api/runs/${run}/elicitations/${id}`, body);

async function toolResult(service: Service, conversation: string): Promise<Message> {
	const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
	return (detail.messages as Message[]).find((m) => m.role === 'tool')!;
}

describe('MCP elicitation', () => {
	let demo: { url: string; child: ChildProcess };
	let ollama: ScriptedOllama;
	let service: Service;
	let config: ReturnType<typeof testMcpConfig>;

	beforeAll(async () => {
		demo = await exampleServer();
		ollama = await ScriptedOllama.start(script);
		config = testMcpConfig();
		const mcp = JSON.parse(fs.readFileSync(path.join(config.configDir, 'mcp.json'), 'utf8'));
		fs.writeFileSync(path.join(config.configDir, 'mcp.json'), JSON.stringify({ ...mcp, demo: { url: demo.url, approval: 'auto' } }));
		// The call's own timeout is shorter than the refusals test keeps its question open: it stands still meanwhile.
		service = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { MCP_TOOL_TIMEOUT_MS: '1000' } });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
		demo?.child.kill('SIGTERM');
	});

	it('shows the example server\'s form on the stream and in the detail; an accepted answer reaches the tool', async () => {
		const { conversation, question, rest } = await askedQuestion(service, 'feedback please');
		expect(question).toMatchObject({ server: 'demo', tool: 'demo__collect-user-info', mode: 'form', message: 'Please provide your feedback' });
		expect(question.requestedSchema).toMatchObject({ type: 'object', required: ['rating', 'recommend'], properties: { rating: { type: 'integer', minimum: 1, maximum: 5 } } });
		const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
		expect(detail.elicitations).toEqual([question]);

		const ok = await answer(service, question.run, question.id, { action: 'accept', content: { rating: 4, recommend: true } });
		expect(ok.status).toBe(200);
		expect(await ok.json()).toEqual({ run: question.run, id: question.id, action: 'accept' });
		const events = await rest();
		expect(events.find((e) => e.event === 'elicitation-closed')?.data).toMatchObject({ id: question.id, action: 'accept' });
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		const result = await toolResult(service, conversation);
		expect(result.status).toBe('success');
		expect(JSON.parse(result.content.slice(result.content.indexOf('{')))).toEqual({ rating: 4, recommend: true });
		expect((await (await service.fetch(`/api/conversations/${conversation}`)).json()).elicitations).toEqual([]);

		// Once answered, the question is closed: a second answer, or after the call ended, is a 409.
		const again = await answer(service, question.run, question.id, { action: 'decline' });
		expect(again.status).toBe(409);
		expect((await again.json()).error.code).toBe('ELICITATION_CLOSED');
	});

	it('refuses careless and hostile answers with a clear error, changing nothing; then a decline reaches the tool', async () => {
		const { conversation, question, rest } = await askedQuestion(service, 'feedback again');
		const refusals: [unknown, number, RegExp][] = [
			[{ action: 'accept', content: { rating: 9, recommend: true } }, 400, /content\.rating/],
			[{ action: 'accept', content: { rating: 2.5, recommend: true } }, 400, /content\.rating/],
			[{ action: 'accept', content: { rating: 3 } }, 400, /content\.recommend: required/],
			[{ action: 'accept', content: { rating: 3, recommend: 'yes' } }, 400, /content\.recommend/],
			[{ action: 'accept', content: { rating: 3, recommend: true, comments: 'x'.repeat(501) } }, 400, /content\.comments/],
			[{ action: 'accept', content: { rating: 3, recommend: true, admin: true } }, 400, /content\.admin: not asked for/],
			[{ action: 'accept' }, 400, /content\.rating: required/],
			[{ action: 'approve' }, 400, /"action": "accept"/],
			[{ action: 'decline', content: {} }, 400, /"action": "decline"/],
			[[], 400, /"action"/],
			['accept', 400, /must be JSON/]
		];
		for (const [body, status, message] of refusals) {
			const res = await answer(service, question.run, question.id, body);
			expect(res.status, JSON.stringify(body)).toBe(status);
			expect((await res.json()).error.message).toMatch(message);
		}
		const post = (init: RequestInit) => service.fetch(`/api/runs/${question.run}/elicitations/${question.id}`, { method: 'POST', ...init });
		// Another site's page cannot answer for the person, and an oversized body is refused before it is read.
		const crossSite = await post({ headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: JSON.stringify({ action: 'decline' }) });
		expect(crossSite.status).toBe(403);
		const huge = await post({ headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'accept', content: { comments: 'x'.repeat(2_000_000) } }) });
		expect(huge.status).toBe(413);
		const notJson = await service.fetch(`/api/runs/${question.run}/elicitations/${question.id}`, { method: 'POST', body: '{', headers: { 'content-type': 'application/json' } });
		expect(notJson.status).toBe(400);
		const unknownRun = await answer(service, '00000000-0000-4000-8000-000000000000', question.id, { action: 'cancel' });
		expect(unknownRun.status).toBe(404);
		expect((await unknownRun.json()).error.message).toBe('Run Not Found');
		const unknownId = await answer(service, question.run, '00000000-0000-4000-8000-000000000000', { action: 'cancel' });
		expect(unknownId.status).toBe(404);
		expect((await answer(service, 'not-a-run', question.id, { action: 'cancel' })).status).toBe(400);
		// A run of another conversation cannot answer this one's question.
		const other = (await (await service.fetch('/api/conversations')).json()).conversations.find((c: { id: string }) => c.id !== conversation);
		const otherRun = (await (await service.fetch(`/api/conversations/${other.id}/runs`)).json()).runs[0].id;
		const foreign = await answer(service, otherRun, question.id, { action: 'cancel' });
		expect(foreign.status).toBe(409);
		expect((await foreign.json()).error.code).toBe('ELICITATION_OF_ANOTHER_RUN');
		// Still open after every refusal.
		expect((await (await service.fetch(`/api/conversations/${conversation}`)).json()).elicitations).toEqual([question]);

		expect((await answer(service, question.run, question.id, { action: 'decline' })).status).toBe(200);
		expect((await rest()).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect((await toolResult(service, conversation)).content).toContain('User declined feedback information request');
	});

	it('over stdio too: the test server\'s question is answered, and the call returns what the person said', async () => {
		const { conversation, question, rest } = await askedQuestion(service, 'ask me');
		expect(question).toMatchObject({ server: 'test', tool: 'test__ask', message: 'Who is asking?' });
		const res = await answer(service, question.run, question.id, { action: 'accept', content: { name: 'Ada', age: 36, colour: 'green' } });
		expect(res.status).toBe(200);
		expect((await rest()).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect((await toolResult(service, conversation)).content).toBe('The person answered {"action":"accept","content":{"name":"Ada","age":36,"colour":"green"}}');
	});

	it('a URL question closes when the server says the interaction it sent the person to has finished (notifications/elicitation/complete)', async () => {
		const { conversation, question, rest } = await askedQuestion(service, 'elsewhere');
		expect(question).toMatchObject({ server: 'test', tool: 'test__ask_url_elsewhere', mode: 'url', message: 'Finish on our page' });
		expect((await (await service.fetch(`/api/conversations/${conversation}`)).json()).elicitations).toEqual([question]);
		// The person finishes on the server's page without pressing Open (another tab, another device): the server says so.
		expect((await fetch(question.url!)).status).toBe(200);
		const events = await rest();
		expect(events.find((e) => e.event === 'elicitation-closed')?.data).toMatchObject({ id: question.id, action: 'complete' });
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect((await toolResult(service, conversation)).content).toBe('The person answered {"action":"accept"}');
		expect((await (await service.fetch(`/api/conversations/${conversation}`)).json()).elicitations).toEqual([]);
		const late = await answer(service, question.run, question.id, { action: 'accept' });
		expect(late.status).toBe(409);
	});

	it('a question nobody answers within ELICITATION_TIMEOUT_MS is answered cancel, and the call goes on', async () => {
		const timing = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { MCP_TOOL_TIMEOUT_MS: '1000', ELICITATION_TIMEOUT_MS: '3000' } });
		try {
			const { conversation, question, rest } = await askedQuestion(timing, 'feedback, but nobody answers');
			const events = await rest();
			expect(events.find((e) => e.event === 'elicitation-closed')?.data).toMatchObject({ id: question.id, action: 'cancel' });
			expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
			const result = await toolResult(timing, conversation);
			// Not "timed out": the call's clock stood still for the 3 s the question was open.
			expect(result).toMatchObject({ status: 'success', content: 'Information collection was cancelled by the user.' });
			const late = await answer(timing, question.run, question.id, { action: 'accept', content: { rating: 1, recommend: false } });
			expect(late.status).toBe(409);
		} finally {
			await timing.stop();
		}
	});

	it('a SIGKILL while the question waits: after the restart the run is interrupted and the call\'s outcome unknown, reported and not repeated', async () => {
		const dataDir = tempDir();
		const first = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, dataDir, env: { UNFINISHED_TOOL_CALLS: 'report' } });
		const { conversation } = await askedQuestion(first, 'ask, then die');
		const asked = () => config.calls().filter((l) => l.startsWith('ask started ')).length;
		const before = asked();
		await first.kill();
		const db = await openServiceDb(dataDir);
		const journal = await db.all<{ tool: string; attempts: number; outcome: string | null }>('SELECT tool, attempts, outcome FROM tool_calls');
		await db.close();
		expect(journal).toEqual([{ tool: 'test__ask', attempts: 1, outcome: null }]);

		const again = await first.restart();
		try {
			const detail = await (await again.fetch(`/api/conversations/${conversation}`)).json();
			expect(detail.conversation.status).toBe('interrupted');
			expect(detail.elicitations).toEqual([]);
			expect(detail.resumable).toBe(true);
			expect((await again.post('/api/chat', { conversation, resume: true })).status).toBe(200);
			const events: SseEvent[] = [];
			for await (const e of sseMessages(await fetch(`${again.url}/api/chat?conversation=${conversation}`))) events.push(e);
			expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
			expect(events.some((e) => e.event === 'elicitation')).toBe(false);
			const result = await toolResult(again, conversation);
			expect(result.status).toBe('error');
			expect(result.content).toContain('interrupted by a crash before its outcome was recorded');
			expect(asked()).toBe(before);
		} finally {
			await again.stop();
		}
	});
});
