import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { Service } from '../support/service';
import { sseMessages, type SseEvent } from '../support/sse';

const answer = (content: string, hold?: string) => () => ({ content, ...(hold ? { hold, holdAfterChunks: 1 } : {}) });

describe('Agent Server protocol: a run through a SIGKILL', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('is never reported a success while cut short; a client joining its id is carried to the resumed run\'s end, whole answer once', async () => {
		ollama = await ScriptedOllama.start(answer('Cut short here.', 'crash'));
		service = await Service.start({ ollamaUrl: ollama.url, env: { AUTO_RESUME: 'true' } });
		const thread = randomUUID();
		const started = await service.post(`/threads/${thread}/runs/stream`, {
			assistant_id: 'agent',
			input: { messages: [{ type: 'human', content: 'survive' }] },
			stream_mode: ['messages-tuple', 'values'],
			if_not_exists: 'create'
		});
		const location = started.headers.get('content-location')!;
		const runId = location.split('/').at(-1)!;
		expect(location).toBe(`/threads/${thread}/runs/${runId}`);
		expect(started.headers.get('location')).toBe(`${location}/stream`);
		const stream = sseMessages(started);
		const seen: SseEvent[] = [];
		while (!seen.some((e) => e.event === 'messages')) seen.push((await stream.next()).value!);
		expect(seen[0]).toMatchObject({ event: 'metadata', data: { run_id: runId, attempt: 1 } });
		await stream.return(undefined);
		const lastEventId = seen.findLast((e) => e.id !== undefined)!.id!;
		await ollama.held('crash');
		await service.kill();

		ollama.script = answer('Answer after the crash.', 'resumed');
		service = await service.restart();
		const client = new Client({ apiUrl: service.url });
		expect(await client.runs.get(thread, runId)).toMatchObject({ run_id: runId, status: 'running' });
		const parts: { event: string; data: unknown }[] = [];
		let attached!: () => void;
		const joined = new Promise<void>((resolve) => (attached = resolve));
		const reading = (async () => {
			for await (const part of client.runs.joinStream(thread, runId, { lastEventId, streamMode: ['messages-tuple', 'values'] })) {
				parts.push(part);
				attached();
			}
		})();
		await joined;
		ollama.release('resumed');
		await reading;
		expect(parts[0]).toMatchObject({ event: 'metadata', data: { run_id: runId, attempt: 2 } });
		const text = parts.filter((p) => p.event === 'messages').map((p) => (p.data as [{ content: string }])[0].content).join('');
		expect(text).toBe('Answer after the crash.');
		const values = parts.filter((p) => p.event === 'values').at(-1)!.data as { messages: { type: string; content: string }[] };
		expect(values.messages.map((m) => `${m.type}:${m.content}`)).toEqual(['human:survive', 'ai:Answer after the crash.']);
		expect(await client.runs.get(thread, runId)).toMatchObject({ status: 'success' });
		expect((await client.runs.list(thread)).map((r) => r.run_id)).toEqual([runId]);
	});
});
