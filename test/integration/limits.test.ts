import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { callsScript, currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { followRun, readEvents } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/** "hold X …" holds its answer after one chunk at the hold named X; anything else answers at once. */
const holdingScript: Script = (request) => {
	const held = /^hold (\w+)/.exec(currentTurn(request).user);
	return held ? { content: `Answer for ${held[1]} here.`, hold: held[1], holdAfterChunks: 1 } : { content: 'Done.' };
};

/** Issue 13: what a careless or hostile client meets is a clear answer, not an unbounded cost. */
describe('limits', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await ollama?.close();
	});

	const post = (body: unknown) => service!.post('/api/chat', body);
	const errorOf = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: { code: string; message: string } }) });
	const detail = async (id: string) => (await service!.fetch(`/api/conversations/${id}`)).json();
	const titles = async () => ((await (await service!.fetch('/api/conversations')).json()).conversations as { title: string }[]).map((c) => c.title);

	it('MAX_CONCURRENT_RUNS: past it 429, or queued with ifBusy "enqueue" and started when a run ends', async () => {
		ollama = await ScriptedOllama.start(holdingScript);
		service = await Service.start({ ollamaUrl: ollama.url, env: { MAX_CONCURRENT_RUNS: '2' } });
		const idle = (await (await post({ message: 'idle one' })).json()).conversation;
		await followRun(service.url, idle);
		const a = (await (await post({ message: 'hold A' })).json()).conversation;
		const b = (await (await post({ message: 'hold B' })).json()).conversation;
		await Promise.all([ollama.held('A'), ollama.held('B')]);

		const refusals = [
			await post({ message: 'hold C' }),
			await post({ message: 'hold C', ifBusy: 'enqueue' }),
			await post({ conversation: idle, message: 'no room' }),
			await post({ conversation: idle, resume: true })
		];
		for (const res of refusals) {
			expect(await errorOf(res)).toEqual({
				status: 429,
				error: {
					code: 'TOO_MANY_RUNS',
					message: '2 runs are running (MAX_CONCURRENT_RUNS): try again when one ends, or send the message with ifBusy "enqueue" to queue it on its conversation'
				}
			});
		}
		expect(await titles()).not.toContain('hold C');
		expect((await detail(idle)).queue).toEqual([]);

		// A conversation that is busy itself answers as below the cap.
		expect((await errorOf(await post({ conversation: a, message: 'again' }))).error.code).toBe('SESSION_IN_PROGRESS');

		const queued = await post({ conversation: idle, message: 'hold D', ifBusy: 'enqueue' });
		expect(queued.status).toBe(202);
		expect((await detail(idle)).queue.map((q: { message: string }) => q.message)).toEqual(['hold D']);

		// Interrupting a conversation's own run frees its slot for the new one.
		const interrupted = await post({ conversation: b, message: 'hold E', ifBusy: 'interrupt' });
		expect(interrupted.status).toBe(200);
		await ollama.held('E');

		ollama.release('A');
		await followRun(service.url, a);
		await ollama.held('D');
		expect((await detail(idle)).queue).toEqual([]);
		ollama.release('D');
		ollama.release('E');
		await Promise.all([followRun(service.url, idle), followRun(service.url, b)]);
		const runsOf = async (id: string) => ((await (await service!.fetch(`/api/conversations/${id}/runs`)).json()).runs as { status: string }[]).map((r) => r.status);
		expect(await runsOf(idle)).toEqual(['completed', 'completed']);
		expect(await runsOf(b)).toEqual(['completed', 'cancelled']);
	});

	it('MAX_QUEUED_MESSAGES: past it 429 QUEUE_FULL, and the queue is unchanged', async () => {
		ollama = await ScriptedOllama.start(holdingScript);
		service = await Service.start({ ollamaUrl: ollama.url, env: { MAX_QUEUED_MESSAGES: '2' } });
		const busy = (await (await post({ message: 'hold Q' })).json()).conversation;
		await ollama.held('Q');
		const message = 'x'.repeat(1000);
		for (const i of [1, 2]) expect((await post({ conversation: busy, message: `${i} ${message}`, ifBusy: 'enqueue' })).status).toBe(202);
		expect(await errorOf(await post({ conversation: busy, message: `3 ${message}`, ifBusy: 'enqueue' }))).toEqual({
			status: 429,
			error: { code: 'QUEUE_FULL', message: 'This conversation already has 2 queued messages (MAX_QUEUED_MESSAGES): wait until they have run' }
		});
		expect((await detail(busy)).queue.map((q: { message: string }) => q.message[0])).toEqual(['1', '2']);
		ollama.release('Q');
		await followRun(service.url, busy);
	});

	it('MAX_TOOL_CALLS_PER_STEP: the calls past it are not made, and the model is told why', async () => {
		const config = testMcpConfig();
		const peeks = Array.from({ length: 5 }, () => ({ name: 'test__peek', arguments: {} }));
		ollama = await ScriptedOllama.start(callsScript([peeks]));
		service = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { MAX_TOOL_CALLS_PER_STEP: '3' } });
		const { conversation } = await (await post({ message: 'peek a lot' })).json();
		expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
		expect(config.calls().filter((c) => c.startsWith('peek '))).toHaveLength(3);
		const tools = ((await detail(conversation)).messages as { role: string; status: string; content: string }[]).filter((m) => m.role === 'tool');
		expect(tools.map((t) => t.status)).toEqual(['success', 'success', 'success', 'error', 'error']);
		expect(tools[3]!.content).toBe(
			'Not run: at most 3 tool calls are made per step (MAX_TOOL_CALLS_PER_STEP). Call it again in a later step if it is still needed.'
		);
		const seen = ollama.requests.at(-1)!.messages.filter((m) => m.role === 'tool');
		expect(seen).toHaveLength(5);
		expect(seen[4]!.content).toContain('MAX_TOOL_CALLS_PER_STEP');
	});

	it('MAX_STREAMS_PER_RUN: the stream past it gets 429 and one chat-error; the others go on to the end', async () => {
		ollama = await ScriptedOllama.start(holdingScript);
		service = await Service.start({ ollamaUrl: ollama.url, env: { MAX_STREAMS_PER_RUN: '2' } });
		const { conversation, run } = await (await post({ message: 'hold S' })).json();
		await ollama.held('S');
		const url = `/api/chat?conversation=${conversation}`;
		const followers = [await service.fetch(url), await service.fetch(url)];
		expect(followers.map((r) => r.status)).toEqual([200, 200]);
		const refused = await service.fetch(url);
		expect(refused.status).toBe(429);
		expect(await readEvents(refused)).toEqual([
			{
				event: 'chat-error',
				data: { code: 'TOO_MANY_STREAMS', message: '2 streams already follow this run (MAX_STREAMS_PER_RUN): close one, or follow it later' }
			}
		]);
		ollama.release('S');
		for (const events of await Promise.all(followers.map(readEvents))) {
			expect(events.at(-1)).toMatchObject({ event: 'end', data: { conversation, run, status: 'completed' } });
		}
	});

	it('readiness: a burst of checks asks the model server once', async () => {
		ollama = await ScriptedOllama.start(holdingScript);
		service = await Service.start({ ollamaUrl: ollama.url });
		const before = ollama.tagsRequests;
		const answers = await Promise.all(Array.from({ length: 30 }, () => service!.fetch('/api/readyz')));
		expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
		expect(ollama.tagsRequests - before).toBe(1);
	});
});
