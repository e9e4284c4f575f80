import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { samples } from '../support/prometheus';
import type { Script } from '../support/scripted-ollama';
import { human, protocolHarness, settled, threadWith } from '../support/protocol-harness';
import { currentTurn } from '../support/scripts';
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

describe('Agent Server protocol: on_disconnect', () => {
	const config = testMcpConfig();
	const harness = protocolHarness(script, config.configDir);

	const effects = (item: string) => config.calls().filter((l) => l.startsWith('effect ') && l.endsWith(` ${item}`));
	/** Sophos's live streams open now: a reader leaves them in the same turn as the run's readers are counted. */
	const streams = async () => samples(await (await harness.service.fetch('/api/metrics')).text(), 'sophos_sse_streams').sophos_sse_streams;

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

	it('cancels a streamed run whose client aborts it (on_disconnect cancel): interrupted, its tool call never made', async () => {
		const thread = await threadWith(harness.client, 'hello');
		const controller = new AbortController();
		const stream = harness.client.runs.stream(thread, 'agent', {
			input: human('later a'),
			onDisconnect: 'cancel',
			streamMode: ['messages-tuple'],
			signal: controller.signal
		});
		const runId = await readThenAbort(stream, controller);
		// The model is still held: the run's end comes from the cancel.
		await settled(harness.client, thread, runId);
		expect(await harness.client.runs.get(thread, runId)).toMatchObject({ status: 'interrupted' });
		harness.ollama.release('a');
		expect((await harness.client.runs.list(thread)).map((r) => r.status)).toEqual(['interrupted', 'success']);
		const state = (await (await harness.service.fetch(`/api/conversations/${thread}`)).json()) as { messages: { content: string }[] };
		expect(state.messages.at(-1)!.content).toBe(LONG.slice(0, 4));
		expect(effects('a')).toEqual([]);
		expect(harness.service.output).not.toMatch(/cancelling it as its last reader left failed/);
	});

	it('cancels a joined run when a raw client drops the socket (cancel_on_disconnect=1)', async () => {
		const thread = await threadWith(harness.client, 'hello');
		const run = await harness.client.runs.create(thread, 'agent', { input: human('later b') });
		await harness.ollama.held('b');
		// A socket of its own, destroyed mid-stream, as a closed tab or a killed client leaves it.
		await new Promise<void>((resolve, reject) => {
			const url = `${harness.service.url}/threads/${thread}/runs/${run.run_id}/stream?cancel_on_disconnect=1&stream_mode=messages-tuple`;
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
		await settled(harness.client, thread, run.run_id);
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'interrupted' });
		harness.ollama.release('b');
		expect(effects('b')).toEqual([]);
	});

	it('goes on while another reader follows the run, and never cancels on continue', async () => {
		const thread = await threadWith(harness.client, 'hello');
		const run = await harness.client.runs.create(thread, 'agent', { input: human('later c') });
		await harness.ollama.held('c');
		const leaving = new AbortController();
		let attached!: () => void;
		const attachedOnce = new Promise<void>((resolve) => (attached = resolve));
		const leftReading = (async () => {
			try {
				const parts = harness.client.runs.joinStream(thread, run.run_id, {
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
			for await (const part of harness.client.runs.joinStream(thread, run.run_id, { lastEventId: '-1', streamMode: ['messages-tuple'] })) {
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
		await expect.poll(streams, { timeout: 60_000 }).toBe(1);
		harness.ollama.release('c');
		expect(await staysReading).toBe(`${LONG}Saved.`);
		await harness.client.runs.join(thread, run.run_id);
		expect(await harness.client.runs.get(thread, run.run_id)).toMatchObject({ status: 'success' });
		expect(effects('c')).toHaveLength(1);

		const controller = new AbortController();
		const streamed = harness.client.runs.stream(thread, 'agent', { input: human('later d'), streamMode: ['messages-tuple'], signal: controller.signal });
		const runId = await readThenAbort(streamed, controller);
		await expect.poll(streams, { timeout: 60_000 }).toBe(0);
		harness.ollama.release('d');
		await harness.client.runs.join(thread, runId);
		expect(await harness.client.runs.get(thread, runId)).toMatchObject({ status: 'success' });
		expect(effects('d')).toHaveLength(1);
	});
});
