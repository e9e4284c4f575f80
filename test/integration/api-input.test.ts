import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';

/** What a careless or hostile client sends: each gets a clear error, and nothing is created or changed. */
describe('bad input', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let existing: string;
	let snapshot: string;

	const listJson = async () => JSON.stringify(await (await service.fetch('/api/conversations')).json());
	const errorOf = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: object }) });

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Hello.'));
		service = await Service.start({ ollamaUrl: ollama.url, env: { MAX_MESSAGE_CHARS: '100' } });
		existing = (await (await service.post('/api/chat', { message: 'hi' })).json()).conversation;
		await followRun(service.url, existing);
		snapshot = await listJson();
	});
	afterAll(async () => {
		expect(await listJson()).toBe(snapshot);
		await service.stop();
		await ollama.close();
	});

	const chatCases: [string, string | undefined, number, string, string?][] = [
		['not JSON', '{"message": "hi"', 400, 'BAD_REQUEST', 'Request body must be JSON'],
		['empty body', '', 400, 'BAD_REQUEST', 'Request body must be JSON'],
		['JSON null', 'null', 400, 'BAD_REQUEST', 'Request body must be a JSON object'],
		['an array', '[{"message":"hi"}]', 400, 'BAD_REQUEST', 'Request body must be a JSON object'],
		['a string', '"hi"', 400, 'BAD_REQUEST', 'Request body must be a JSON object'],
		['message of the wrong type', '{"message": 42}', 400, 'BAD_REQUEST'],
		['conversation of the wrong type', '{"message": "hi", "conversation": 7}', 400, 'BAD_REQUEST'],
		['resume of the wrong type', '{"resume": "true", "conversation": "x"}', 400, 'BAD_REQUEST'],
		['an unknown field', '{"message": "hi", "sessionId": "x"}', 400, 'BAD_REQUEST'],
		['a blank message', '{"message": "   \\n "}', 400, 'BAD_REQUEST', 'Message is required'],
		['no message', '{}', 400, 'BAD_REQUEST', 'Message is required'],
		['resume without a conversation', '{"resume": true}', 400, 'BAD_REQUEST', 'A conversation is required to resume'],
		['an empty conversation id', '{"message": "hi", "conversation": ""}', 400, 'BAD_REQUEST', 'Invalid Conversation ID'],
		['a path as conversation id', '{"message": "hi", "conversation": "../../etc/passwd"}', 400, 'BAD_REQUEST', 'Invalid Conversation ID'],
		['an unknown conversation', '{"message": "hi", "conversation": "0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11"}', 404, 'NOT_FOUND', 'Conversation Not Found'],
		['a message over MAX_MESSAGE_CHARS', JSON.stringify({ message: 'x'.repeat(101) }), 413, 'MESSAGE_TOO_LARGE']
	];

	it.each(chatCases)('POST /api/chat with %s', async (_, body, status, code, message) => {
		const res = await service.fetch('/api/chat', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
		const error = await errorOf(res);
		expect(error.status).toBe(status);
		expect(error.error).toMatchObject({ code, ...(message ? { message } : {}) });
	});

	// The afterAll check covers these too: no conversation is created and none changes its model.
	it.each([
		['not <provider>/<model>', { message: 'hi', model: 'qwen3' }, 'Invalid field "model"'],
		['an empty model', { message: 'hi', model: '' }, 'Invalid field "model"'],
		['a model of the wrong type', { message: 'hi', model: 42 }, 'Invalid field "model"'],
		['a model over 256 characters', { message: 'hi', model: `ollama/${'x'.repeat(260)}` }, 'Invalid field "model"'],
		['a provider that is not configured', { message: 'hi', model: 'vllm/qwen3' }, 'Unknown model "vllm/qwen3": no provider "vllm" is configured (configured: ollama)'],
		['a model the provider does not serve', { message: 'hi', model: 'ollama/llama3' }, 'Unknown model "ollama/llama3": "ollama" serves qwen3'],
		['a model the provider does not serve, on a next turn', { message: 'hi', model: 'ollama/llama3', conversation: '{existing}' }, '"ollama" serves qwen3'],
		['a model on a resume', { resume: true, model: 'openai/gpt-4o', conversation: '{existing}' }, 'no provider "openai"'],
		['a model on a cancel', { cancel: true, model: 'ollama/qwen3', conversation: '{existing}' }, 'not a cancel']
	])('POST /api/chat with %s', async (_, body, message) => {
		const withId = { ...body, ...('conversation' in body ? { conversation: existing } : {}) };
		const error = await errorOf(await service.post('/api/chat', withId));
		expect(error).toMatchObject({ status: 400, error: { code: 'BAD_REQUEST', message: expect.stringContaining(message) } });
		const { runs } = await (await service.fetch(`/api/conversations/${existing}/runs`)).json();
		expect(runs).toHaveLength(1);
	});

	it('refuses a body over 1 MiB from its Content-Length', async () => {
		const body = JSON.stringify({ message: 'x'.repeat(1024 * 1024 + 10) });
		const error = await errorOf(await service.post('/api/chat', body));
		expect(error).toMatchObject({ status: 413, error: { code: 'PAYLOAD_TOO_LARGE' } });
	});

	it('refuses a chunked body over 1 MiB while reading it', async () => {
		// A raw socket, not fetch: the server may answer and close while the body is still being
		// written, as HTTP allows, and fetch then fails the request with EPIPE instead of reading the
		// answer that already came. What counts is the answer, so a write error after it is ignored.
		// The body is one chunk that passes the cap by a byte and never ends: nothing is sent past
		// the byte the server stops at, since bytes it leaves unread when it closes make its kernel
		// reset the connection, which can drop the answer before this side reads it.
		const { port, hostname } = new URL(service.url);
		const socket = net.connect(Number(port), hostname);
		socket.on('error', () => {});
		const answer = new Promise<string>((resolve) => {
			let text = '';
			socket.on('data', (data) => {
				text += data.toString('latin1');
				if (text.includes('\r\n\r\n') && text.includes('}')) resolve(text);
			});
			socket.on('close', () => resolve(text));
		});
		socket.write(`POST /api/chat HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
		const over = 1024 * 1024 + 1;
		const piece = 64 * 1024;
		const pieces = [`${over.toString(16)}\r\n`, ...Array.from({ length: Math.ceil(over / piece) }, (_, i) => 'x'.repeat(Math.min(piece, over - i * piece)))];
		let answered = false;
		void answer.then(() => (answered = true));
		for (const data of pieces) {
			if (answered || socket.destroyed) break;
			await new Promise<void>((resolve) => socket.write(data, () => resolve()));
		}
		const text = await answer;
		socket.destroy();
		expect(text).toMatch(/^HTTP\/1\.1 413 /);
		expect(text).toContain('"PAYLOAD_TOO_LARGE"');
	});

	it('refuses to resume a finished thread, and leaves no run behind', async () => {
		const error = await errorOf(await service.post('/api/chat', { conversation: existing, resume: true }));
		expect(error).toMatchObject({ status: 409, error: { code: 'RUN_NOT_RESUMABLE' } });
		const { runs } = await (await service.fetch(`/api/conversations/${existing}/runs`)).json();
		expect(runs).toHaveLength(1);
	});

	it.each([
		['/api/conversations/not-a-uuid', 400, 'BAD_REQUEST'],
		['/api/conversations/..%2F..%2Fetc%2Fpasswd', 400, 'BAD_REQUEST'],
		['/api/conversations/0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11', 404, 'NOT_FOUND'],
		['/api/conversations/not-a-uuid/export', 400, 'BAD_REQUEST'],
		['/api/conversations/0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11/export?format=jsonl', 404, 'NOT_FOUND'],
		['/api/conversations/not-a-uuid/runs', 400, 'BAD_REQUEST'],
		['/api/conversations/0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11/runs', 404, 'NOT_FOUND']
	])('GET %s', async (pathname, status, code) => {
		const error = await errorOf(await service.fetch(pathname));
		expect(error).toMatchObject({ status, error: { code } });
	});

	it.each([
		['limit=0'],
		['limit=-1'],
		['limit=abc'],
		['limit=1.5'],
		['limit=1e2'],
		['limit='],
		['limit=%201'],
		['limit=1001'],
		['limit=99999999999999999999999'],
		['limit=1&limit=2']
	])('GET /api/conversations?%s', async (query) => {
		const error = await errorOf(await service.fetch(`/api/conversations?${query}`));
		expect(error).toMatchObject({ status: 400, error: { code: 'BAD_REQUEST', message: expect.stringContaining('limit') } });
	});

	it.each([
		['/api/conversations/not-a-uuid', 400, 'BAD_REQUEST'],
		['/api/conversations/0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11', 404, 'NOT_FOUND']
	])('DELETE %s', async (pathname, status, code) => {
		const error = await errorOf(await service.fetch(pathname, { method: 'DELETE' }));
		expect(error).toMatchObject({ status, error: { code } });
	});

	it('answers the SSE stream of a bad or unknown id with one exact event', async () => {
		const bad = await service.fetch('/api/chat?conversation=nope');
		expect(bad.headers.get('content-type')).toMatch(/^text\/event-stream/);
		expect(await bad.text()).toBe(
			'retry: 1000\n\nevent: chat-error\ndata: {"code":"BAD_REQUEST","message":"Invalid Conversation ID"}\n\n'
		);
		const missing = await service.fetch('/api/chat');
		expect(await missing.text()).toContain('"code":"BAD_REQUEST"');
		const unknown = await (await service.fetch('/api/chat?conversation=0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11')).text();
		expect(unknown).toBe(
			'retry: 1000\n\nevent: chat-error\ndata: {"code":"NOT_FOUND","message":"Conversation Not Found","conversation":"0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11"}\n\n'
		);
	});

	it('answers a finished conversation with its durable outcome and no id', async () => {
		const text = await (await service.fetch(`/api/chat?conversation=${existing.toUpperCase()}`)).text();
		expect(text).toBe(`retry: 1000\n\nevent: end\ndata: {"conversation":"${existing}","status":"completed"}\n\n`);
	});

	it('refuses form posts from other sites (CSRF)', async () => {
		const res = await service.fetch('/api/chat', {
			method: 'POST',
			headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'http://evil.example' },
			body: 'message=hi'
		});
		expect(res.status).toBe(403);
	});

	it('refuses methods a route does not have', async () => {
		const json = { 'Content-Type': 'application/json' };
		expect((await service.fetch('/api/chat', { method: 'PUT', headers: json, body: '{}' })).status).toBe(405);
		expect((await service.fetch('/api/conversations', { method: 'DELETE' })).status).toBe(405);
	});
});
