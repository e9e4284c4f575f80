// on_disconnect "cancel" with readers on two instances of one PostgreSQL database: the run, executed
// by A, is cancelled when its last reader leaves, on whichever instance that reader was, once.

import { Client } from '@langchain/langgraph-sdk';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { samples } from '../support/prometheus';
import { human, LONG, settled, threadWith } from '../support/protocol-harness';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { testMcpConfig } from '../support/test-config';

/**
 * "twice <item>": two steps, each an answer held after its first chunk (hold `<item>1`, then
 * `<item>2`) and then a write (test__effect `<item>1`, `<item>2`, approval auto), then "Saved.".
 * A run seen held at `<item>2` went on after its first reader left; one cancelled there never
 * makes `<item>2`.
 */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const twice = /^twice (\w+)$/.exec(user);
	if (!twice) return { content: `You said: ${user}` };
	const made = after.filter((m) => m.role === 'tool').length;
	if (made >= 2) return { content: 'Saved.' };
	const item = `${twice[1]}${made + 1}`;
	return { content: LONG, hold: item, holdAfterChunks: 1, toolCalls: [{ name: 'test__effect', arguments: { item } }] };
};

describe('Agent Server protocol: on_disconnect cancel across instances', () => {
	const config = testMcpConfig();
	let ollama: ScriptedOllama;
	let database: TestDatabase;
	let a: Service;
	let b: Service;
	let clientA: Client;
	let clientB: Client;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script);
		database = await createTestDatabase(inject('postgresUrl'), 'disconnect');
		const start = (name: string) =>
			Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { DATABASE_URL: database.url, SOPHOS_INSTANCE_ID: `instance-${name}` } });
		a = await start('a');
		b = await start('b');
		clientA = new Client({ apiUrl: a.url });
		clientB = new Client({ apiUrl: b.url });
	});
	afterAll(async () => {
		await a?.stop();
		await b?.stop();
		await ollama?.close();
		await database?.drop();
	});

	const effects = (item: string) => config.calls().filter((l) => l.startsWith('effect ') && l.endsWith(` ${item}`));
	/** The instance's live streams: a reader has left it once this has gone down. */
	const streams = async (s: Service) => samples(await (await s.fetch('/api/metrics')).text(), 'sophos_sse_streams').sophos_sse_streams;

	/**
	 * A reader of the run through `client` with on_disconnect cancel (cancel_on_disconnect=1),
	 * from its first event: `reading` settles once it has had a chunk of the answer, `leave` drops it.
	 */
	function joinWithCancel(client: Client, thread: string, runId: string) {
		const controller = new AbortController();
		let read!: () => void;
		const reading = new Promise<void>((resolve) => (read = resolve));
		const done = (async () => {
			try {
				const parts = client.runs.joinStream(thread, runId, {
					cancelOnDisconnect: true,
					lastEventId: '-1',
					streamMode: ['messages-tuple'],
					signal: controller.signal
				});
				for await (const part of parts) if (part.event === 'messages') read();
				return null;
			} catch (e) {
				// Held, not thrown: the stream of an instance that is killed fails, and that is expected there.
				return controller.signal.aborted ? null : (e as Error);
			}
		})();
		return {
			reading,
			leave: async () => {
				controller.abort();
				const failed = await done;
				if (failed) throw failed;
			}
		};
	}

	/**
	 * A run started on A by a protocol stream with on_disconnect cancel, read until the first chunk
	 * of its answer (held at `<item>1`); `leave` drops that stream and waits until A has let it go.
	 */
	async function streamOnA(item: string) {
		const thread = await threadWith(clientA, 'hello');
		const controller = new AbortController();
		const streamed = clientA.runs.stream(thread, 'agent', { input: human(`twice ${item}`), onDisconnect: 'cancel', streamMode: ['messages-tuple'], signal: controller.signal });
		let runId = '';
		const iterator = streamed[Symbol.asyncIterator]();
		for (let part = await iterator.next(); !part.done; part = await iterator.next()) {
			if (part.value.event === 'metadata') runId = (part.value.data as { run_id: string }).run_id;
			if (part.value.event === 'messages') break;
		}
		await ollama.held(`${item}1`);
		const leave = async () => {
			controller.abort();
			await iterator.return?.(undefined).catch((e: Error) => expect(e.name).toBe('AbortError'));
			await expect.poll(() => streams(a), { timeout: 60_000 }).toBe(0);
		};
		return { thread, runId, leave };
	}

	/**
	 * Settles once the run is held at its second step; rejects if it ends first (cancelled as its
	 * first reader left). What watches for that end is a join on A, a reader too: it is gone from A
	 * again, leaving `readersOnA`, when this settles.
	 */
	async function secondStep(thread: string, runId: string, item: string, readersOnA: number) {
		const watching = new AbortController();
		const ended = clientA.runs.join(thread, runId, { signal: watching.signal }).then(
			() => Promise.reject(new Error('the run ended before its second step')),
			(e: Error) => (watching.signal.aborted ? undefined : Promise.reject(e))
		);
		await Promise.race([ollama.held(`${item}2`), ended]);
		watching.abort();
		await ended;
		await expect.poll(() => streams(a), { timeout: 60_000 }).toBe(readersOnA);
	}

	/** The run ends interrupted, once, its second write never made. */
	async function cancelledOnce(thread: string, runId: string, item: string) {
		await settled(clientA, thread, runId);
		expect(await clientB.runs.get(thread, runId)).toMatchObject({ status: 'interrupted' });
		ollama.release(`${item}2`);
		expect((await clientA.runs.list(thread)).map((r) => r.status)).toEqual(['interrupted', 'success']);
		expect(effects(`${item}1`)).toHaveLength(1);
		expect(effects(`${item}2`)).toEqual([]);
		for (const s of [a, b]) expect(s.output).not.toMatch(/as its last reader left failed|a reader left failed|its readers on other instances|Unexpected error/);
	}

	it('a reader on A leaving does not cancel while one on B follows; B leaving then cancels it', async () => {
		const { thread, runId, leave } = await streamOnA('x');
		const onB = joinWithCancel(clientB, thread, runId);
		await onB.reading;
		expect(await streams(b)).toBe(1);

		await leave();
		// The run goes on: its first write is made and it reaches its second step, B still reading it.
		ollama.release('x1');
		await secondStep(thread, runId, 'x', 0);
		expect(effects('x1')).toHaveLength(1);
		expect(await clientA.runs.get(thread, runId)).toMatchObject({ status: 'running' });

		await onB.leave();
		await cancelledOnce(thread, runId, 'x');
	});

	it('a reader on B leaving does not cancel while one on A follows; A leaving then cancels it', async () => {
		const thread = await threadWith(clientA, 'hello');
		const run = await clientA.runs.create(thread, 'agent', { input: human('twice y') });
		await ollama.held('y1');
		const onA = joinWithCancel(clientA, thread, run.run_id);
		const onB = joinWithCancel(clientB, thread, run.run_id);
		await Promise.all([onA.reading, onB.reading]);

		await onB.leave();
		await expect.poll(() => streams(b), { timeout: 60_000 }).toBe(0);
		ollama.release('y1');
		await secondStep(thread, run.run_id, 'y', 1);
		expect(effects('y1')).toHaveLength(1);
		expect(await clientB.runs.get(thread, run.run_id)).toMatchObject({ status: 'running' });

		await onA.leave();
		await cancelledOnce(thread, run.run_id, 'y');
	});

	// Last: B is killed.
	it('a reader on an instance that died counts until its row times out, never cancelling the run; then a reader leaving cancels it', async () => {
		const { thread, runId, leave } = await streamOnA('z');
		const onB = joinWithCancel(clientB, thread, runId);
		await onB.reading;
		await b.kill();
		await leave();
		ollama.release('z1');
		await secondStep(thread, runId, 'z', 0);
		expect(effects('z1')).toHaveLength(1);

		// Once B's row has timed out (B renews it no more), the last reader is the one on A.
		const db = new pg.Client({ connectionString: database.url });
		await db.connect();
		try {
			const counted = async () => (await db.query('SELECT 1 FROM run_readers WHERE run_id = $1 AND until > now()', [runId])).rowCount;
			await vi.waitFor(async () => expect(await counted()).toBe(0), { timeout: 60_000, interval: 250 });
		} finally {
			await db.end();
		}
		const onA = joinWithCancel(clientA, thread, runId);
		await onA.reading;
		await onA.leave();
		await settled(clientA, thread, runId);
		expect(await clientA.runs.get(thread, runId)).toMatchObject({ status: 'interrupted' });
		ollama.release('z2');
		expect(effects('z2')).toEqual([]);
	});
});
