import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript, walkthroughScript } from '../support/scripts';
import { Service } from '../support/service';
import { openServiceDb } from '../support/service-db';
import { followRun, readEvents, tokensOf } from '../support/sse';

describe('reasoning (OLLAMA_THINK=true)', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(
			answerScript('The answer is **42**.', { thinking: 'Let me think this through step by step.', hold: 'think', holdAfterChunks: 0 })
		);
		service = await Service.start({ ollamaUrl: ollama.url, env: { OLLAMA_THINK: 'true' } });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('streams as its own event, stays in the record and in the export', async () => {
		const { conversation } = await (await service.post('/api/chat', { message: 'What is the answer?' })).json();
		// Held before its first chunk, so the stream is followed live and its reasoning events are seen.
		await ollama.held('think');
		const stream = await service.fetch(`/api/chat?conversation=${conversation}`);
		ollama.release('think');
		const events = await readEvents(stream);
		expect(ollama.requests.at(-1)!.think).toBe(true);
		const reasoning = events.filter((e) => e.event === 'reasoning').map((e) => e.data).join('');
		expect(reasoning).toBe('Let me think this through step by step.');
		expect(tokensOf(events)).toBe('The answer is **42**.');

		const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
		expect(detail.messages[1]).toMatchObject({
			role: 'assistant',
			content: 'The answer is **42**.',
			reasoning: 'Let me think this through step by step.'
		});
		const md = await (await service.fetch(`/api/conversations/${conversation}/export`)).text();
		expect(md).toContain('<summary>Thinking</summary>');
		expect(md).toContain('Let me think this through step by step.');
	});
});

describe('export and delete', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(walkthroughScript({ url: 'https://example.com', fetch: false }));
		service = await Service.start({ ollamaUrl: ollama.url });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('exports a Markdown transcript with its headers', async () => {
		const { conversation } = await (await service.post('/api/chat', { message: 'Save example.com\nsecond line' })).json();
		await followRun(service.url, conversation);
		const res = await service.fetch(`/api/conversations/${conversation}/export?format=other`);
		expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
		expect(res.headers.get('content-disposition')).toBe(`attachment; filename="${conversation}.md"`);
		const md = await res.text();
		expect(md.startsWith(`# Save example.com\n\n- Conversation / thread_id: \`${conversation}\`\n- Created: `)).toBe(true);
		expect(md).toContain('## User\n\nSave example.com\nsecond line\n');
		expect(md).toContain('> **Tool call** `memory__create_entities`');
		expect(md).toContain('### Tool result: `memory__add_observations` (error)');

		const jsonl = await service.fetch(`/api/conversations/${conversation}/export?format=jsonl`);
		expect(jsonl.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
		expect(jsonl.headers.get('content-disposition')).toBe(`attachment; filename="${conversation}.checkpoints.jsonl"`);
	});

	it('deletes a conversation with its runs, checkpoints and writes', async () => {
		const { conversation } = await (await service.post('/api/chat', { message: 'to be deleted' })).json();
		await followRun(service.url, conversation);
		const res = await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' });
		expect(res.status).toBe(204);
		expect((await service.fetch(`/api/conversations/${conversation}`)).status).toBe(404);
		expect((await service.fetch(`/api/conversations/${conversation}/runs`)).status).toBe(404);
		const list = (await (await service.fetch('/api/conversations')).json()).conversations;
		expect(list.map((c: { id: string }) => c.id)).not.toContain(conversation);

		const db = await openServiceDb(service.options.dataDir);
		try {
			const tables = await db.tables();
			let rows = 0;
			for (const table of tables) {
				// Every table that names a conversation or thread: none may still hold this one.
				for (const column of table === 'conversations' ? ['id'] : ['thread_id', 'conversation_id']) {
					const has = await db.all<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE ${column} = ?`, conversation).catch(() => null);
					if (has) rows += Number(has[0]!.n);
				}
			}
			expect(tables).toEqual(expect.arrayContaining(['conversations', 'runs', 'lg_threads']));
			expect(rows).toBe(0);
		} finally {
			await db.close();
		}
		expect((await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' })).status).toBe(404);
	});

	it('lists a first page of the most recently updated conversations, and says whether there are more', async () => {
		for (const message of ['page one', 'page two', 'page three']) {
			const { conversation } = await (await service.post('/api/chat', { message })).json();
			await followRun(service.url, conversation);
		}
		const all = (await (await service.fetch('/api/conversations')).json()).conversations;
		expect(all.length).toBeGreaterThanOrEqual(3);
		expect(all.slice(0, 3).map((c: { title: string }) => c.title)).toEqual(['page three', 'page two', 'page one']);
		for (const limit of [1, 2, all.length - 1, all.length, all.length + 1]) {
			const page = await (await service.fetch(`/api/conversations?limit=${limit}`)).json();
			expect(page).toEqual({ conversations: all.slice(0, limit), hasMore: all.length > limit });
		}
	});

	it('a delete that fails halfway changes nothing: the conversation, its runs and checkpoints stay', async () => {
		const { conversation } = await (await service.post('/api/chat', { message: 'keep me whole' })).json();
		await followRun(service.url, conversation);
		const before = await (await service.fetch(`/api/conversations/${conversation}`)).json();
		const runsBefore = await (await service.fetch(`/api/conversations/${conversation}/runs`)).json();
		// The checkpoint rows go last, after the conversation and its runs: failing there must undo all.
		const db = await openServiceDb(service.options.dataDir);
		try {
			const refusal = await db.refuseDeletes('lg_checkpoints');
			const refused = await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' });
			expect(refused.status).toBe(500);
			expect((await refused.json()).error.code).toBe('INTERNAL_ERROR');
			expect(await (await service.fetch(`/api/conversations/${conversation}`)).json()).toEqual(before);
			expect(await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).toEqual(runsBefore);
			await refusal.undo();
		} finally {
			await db.close();
		}
		expect((await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' })).status).toBe(204);
		expect((await service.fetch(`/api/conversations/${conversation}`)).status).toBe(404);
	});
});

describe('graceful shutdown', () => {
	it('SIGTERM ends live streams with a terminal event, records the run interrupted, and exits 0', async () => {
		const ollama = await ScriptedOllama.start(answerScript('A long answer that will be cut.', { hold: 'cut', holdAfterChunks: 2 }));
		const service = await Service.start({ ollamaUrl: ollama.url });
		let restarted: Service | undefined;
		try {
			const { conversation, run } = await (await service.post('/api/chat', { message: 'long' })).json();
			const stream = await service.fetch(`/api/chat?conversation=${conversation}`);
			await ollama.held('cut');
			const events = readEvents(stream);
			expect(await service.stop('SIGTERM')).toBe(0);
			const last = (await events).at(-1);
			expect(last).toEqual({
				id: expect.any(String),
				event: 'end',
				data: { conversation, run, status: 'interrupted', cause: 'SHUTDOWN' }
			});
			ollama.release('cut');

			restarted = await service.restart();
			const detail = await (await restarted.fetch(`/api/conversations/${conversation}`)).json();
			expect(detail.conversation).toMatchObject({ status: 'interrupted', error: { code: 'SHUTDOWN' } });
			expect(detail.resumable).toBe(true);
			ollama.script = answerScript('Finished after all.');
			await restarted.post('/api/chat', { conversation, resume: true });
			expect(tokensOf(await followRun(restarted.url, conversation))).toBe('Finished after all.');
		} finally {
			await restarted?.stop();
			await service.stop();
			await ollama.close();
		}
	});
});

describe('settings', () => {
	it.each([
		['AGENT_RECURSION_LIMIT', 'abc'],
		['AGENT_RECURSION_LIMIT', '0'],
		['PORT', '70000'],
		['OLLAMA_HOST', 'not a url'],
		['OLLAMA_HOST', 'file:///etc/passwd'],
		['OLLAMA_THINK', 'maybe'],
		['MAX_MESSAGE_CHARS', '-5'],
		['SSE_BUFFER_EVENTS', '10']
	])('refuses to start with %s=%s, naming the variable', async (name, value) => {
		await expect(Service.start({ ollamaUrl: 'http://127.0.0.1:9', env: { [name]: value } })).rejects.toThrow(
			new RegExp(`${name}=`)
		);
	});

	it('refuses to start with an invalid mcp.json, naming the file and the problem', async () => {
		const { tempDir } = await import('../support/service');
		const fs = await import('node:fs');
		const dir = tempDir('sophos-config-');
		fs.writeFileSync(path.join(dir, 'mcp.json'), JSON.stringify({ memory: { command: 'node', argz: [] } }));
		await expect(Service.start({ ollamaUrl: 'http://127.0.0.1:9', configDir: dir })).rejects.toThrow(
			/Invalid MCP configuration in .*mcp\.json: memory/
		);
	});
});
