import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samples } from '../support/prometheus';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { testMcpConfig } from '../support/test-config';

/**
 * on_disconnect "cancel" (and cancel_on_disconnect=1 on a joined stream) against the built
 * service: the run is cancelled once its last reader has gone, and goes on while another reads it
 * or when asked to `continue`. "later <item>": an answer held after its first chunk, then a write
 * (approval auto), so a run cancelled at the hold never makes it.
 */
const LONG = 'This answer streams slowly, piece by piece, so a test can act while it runs.';

const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const later = /^later (\w+)$/.exec(user);
	if (later && !after.some((m) => m.role === 'tool')) {
		return { content: LONG, hold: later[1]!, holdAfterChunks: 1, toolCalls: [{ name: 'test__effect', arguments: { item: later[1]! } }] };
	}
	if (later) return { content: 'Saved.' };
	return { content: `You said: ${user}` };
};

const human = (content: string) => ({ messages: [{ type: 'human', content }] });

describe('Agent Server protocol: on_disconnect', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let client: Client;
	const config = testMcpConfig();

	const effects = (item: string) => config.calls().filter((l) => l.startsWith('effect ') && l.endsWith(` ${item}`));
	/** Sophos's live streams open now: a reader leaves them in the same turn as the run's readers are counted. */
	const streams = async () => samples(await (await service.fetch('/api/metrics')).text(), 'sophos_sse_streams').sophos_sse_streams;

	async function threadWith(message: string): Promise<string> {
		const thread = randomUUID();
		await client.runs.wait(thread, 'agent', { input: human(message), ifNotExists: 'create' });
		return thread;
	}

	/** Reads an SDK stream until its first chunk of the answer, then aborts it; answers the run id. */
	async function readThenAbort(parts: AsyncIterable<{ event: string; data: unknown }>, controller: AbortController): Promise<string> {
		let runId = '';
		try {
			for await (const part of parts) {
				if (part.event === 'metadata') runId = (part.data as { run_id: string }).run_id;
				if (part.event === 'messages') controller.abort();
			}
		} catch (e) {
			if (!controller.signal.aborted) throw e;
		}
		return runId;
	}

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script);
		service = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir });
		client = new Client({ apiUrl: service.url });
	});
	afterAll(async () => {
		await service?.stop();
		await ollama?.close();
	});

	it('cancels a streamed run whose client aborts it (on_disconnect cancel): interrupted, its tool call never made', async () => {
		const thread = await threadWith('hello');
		const controller = new AbortController();
		const stream = client.runs.stream(thread, 'agent', {
			input: human('later a'),
			onDisconnect: 'cancel',
			streamMode: ['messages-tuple'],
			signal: controller.signal
		});
		const runId = await readThenAbort(stream, controller);
		// A join is a reader too: it follows the run once the one that left is gone. The run's end,
		// which it waits for, comes from the cancel, since the model is still held.
		await expect.poll(streams).toBe(0);
		await client.runs.join(thread, runId);
		expect(await client.runs.get(thread, runId)).toMatchObject({ status: 'interrupted' });
		ollama.release('a');
		expect((await client.runs.list(thread)).map((r) => r.status)).toEqual(['interrupted', 'success']);
		const state = (await (await service.fetch(`/api/conversations/${thread}`)).json()) as { messages: { content: string }[] };
		expect(state.messages.at(-1)!.content).toBe(LONG.slice(0, 4));
		expect(effects('a')).toEqual([]);
		expect(service.output).not.toMatch(/cancelling it as its last reader left failed/);
	});

	it('cancels a joined run when a raw client drops the socket (cancel_on_disconnect=1)', async () => {
		const thread = await threadWith('hello');
		const run = await client.runs.create(thread, 'agent', { input: human('later b') });
		await ollama.held('b');
		// A socket of its own, destroyed mid-stream, as a closed tab or a killed client leaves it.
		await new Promise<void>((resolve, reject) => {
			const url = `${service.url}/threads/${thread}/runs/${run.run_id}/stream?cancel_on_disconnect=1&stream_mode=messages-tuple`;
			const req = http.get(url, { agent: false, headers: { 'Last-Event-ID': '-1' } }, (res) => {
				let seen = '';
				res.setEncoding('utf8');
				res.on('data', (chunk: string) => {
					seen += chunk;
					if (seen.includes('event: messages')) {
						req.destroy();
						resolve();
					}
				});
			});
			req.on('error', (e) => (req.destroyed ? undefined : reject(e)));
		});
		await expect.poll(streams).toBe(0);
		await client.runs.join(thread, run.run_id);
		expect(await client.runs.get(thread, run.run_id)).toMatchObject({ status: 'interrupted' });
		ollama.release('b');
		expect(effects('b')).toEqual([]);
	});

	it('goes on while another reader follows the run, and never cancels on continue', async () => {
		const thread = await threadWith('hello');
		const run = await client.runs.create(thread, 'agent', { input: human('later c') });
		await ollama.held('c');
		const leaving = new AbortController();
		let attached!: () => void;
		const attachedOnce = new Promise<void>((resolve) => (attached = resolve));
		const leftReading = (async () => {
			try {
				const parts = client.runs.joinStream(thread, run.run_id, {
					cancelOnDisconnect: true,
					lastEventId: '-1',
					streamMode: ['messages-tuple'],
					signal: leaving.signal
				});
				for await (const part of parts) if (part.event === 'messages') attached();
			} catch (e) {
				if (!leaving.signal.aborted) throw e;
			}
		})();
		let staying!: () => void;
		const stayed = new Promise<void>((resolve) => (staying = resolve));
		const staysReading = (async () => {
			const chunks: string[] = [];
			for await (const part of client.runs.joinStream(thread, run.run_id, { lastEventId: '-1', streamMode: ['messages-tuple'] })) {
				if (part.event === 'messages') {
					staying();
					chunks.push((part.data as [{ content: string }])[0].content);
				}
			}
			return chunks.join('');
		})();
		await Promise.all([attachedOnce, stayed]);
		expect(await streams()).toBe(2);
		leaving.abort();
		await leftReading;
		// Its leaving, and the count of readers it leaves behind, are one turn of the service's loop.
		await expect.poll(streams).toBe(1);
		ollama.release('c');
		expect(await staysReading).toBe(`${LONG}Saved.`);
		await client.runs.join(thread, run.run_id);
		expect(await client.runs.get(thread, run.run_id)).toMatchObject({ status: 'success' });
		expect(effects('c')).toHaveLength(1);

		const controller = new AbortController();
		const streamed = client.runs.stream(thread, 'agent', { input: human('later d'), streamMode: ['messages-tuple'], signal: controller.signal });
		const runId = await readThenAbort(streamed, controller);
		await expect.poll(streams).toBe(0);
		ollama.release('d');
		await client.runs.join(thread, runId);
		expect(await client.runs.get(thread, runId)).toMatchObject({ status: 'success' });
		expect(effects('d')).toHaveLength(1);
	});
});
