// Several service processes on one PostgreSQL database: the guarantees that must hold across
// machines. Each instance is its own process with its own data directory (memory file), named by
// SOPHOS_INSTANCE_ID; RUN_LEASE_MS is short so a dead owner's lease ends soon, but no assertion
// waits on a clock: each waits for the state it expects (a run taken over, a log line).

import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { inject } from 'vitest';
import type { ScriptRequest } from '../support/model-script';
import { attemptIds } from '../../src/lib/server/telemetry/run-ids';
import { OtlpReceiver } from '../support/otlp-receiver';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { openServiceDb } from '../support/service-db';
import { promtoolCheck, samples } from '../support/prometheus';
import { followRun, readEvents, sseMessages, tokensOf, type SseEvent } from '../support/sse';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { testMcpConfig } from '../support/test-config';

const LEASE_MS = 1_000;

let ollama: ScriptedOllama;
let database: TestDatabase;
const started: Service[] = [];

beforeAll(async () => {
	ollama = await ScriptedOllama.start(() => ({ content: 'Hello.' }));
});
afterAll(() => ollama.close());
const receivers: OtlpReceiver[] = [];
afterEach(async () => {
	for (const s of started.splice(0)) {
		s.child.kill('SIGCONT');
		await s.stop();
	}
	for (const r of receivers.splice(0)) await r.close();
	await database?.drop();
});

/** Two instances on a fresh database. */
async function instances(env: Record<string, string> = {}, configDir?: string): Promise<[Service, Service]> {
	database = await createTestDatabase(inject('postgresUrl'), 'instances');
	const list: Service[] = [];
	for (let i = 0; i < 2; i += 1) {
		const s = await Service.start({
			ollamaUrl: ollama.url,
			...(configDir ? { configDir } : {}),
			env: { DATABASE_URL: database.url, SOPHOS_INSTANCE_ID: `instance-${i}`, RUN_LEASE_MS: String(LEASE_MS), ...env }
		});
		started.push(s);
		list.push(s);
	}
	return [list[0]!, list[1]!];
}

const json = async (res: Response) => ({ status: res.status, body: await res.json() });
const runsOf = async (s: Service, conversation: string) =>
	(await (await s.fetch(`/api/conversations/${conversation}/runs`)).json()).runs as { id: string; status: string; trigger: string; error?: { code: string } }[];
const detail = async (s: Service, conversation: string) => (await s.fetch(`/api/conversations/${conversation}`)).json();

/** The instance's figures for the run outcomes and the lease counters, from its /api/metrics. */
async function countsOf(s: Service) {
	const text = await (await s.fetch('/api/metrics')).text();
	return {
		runs: samples(text, 'sophos_runs_total'),
		takenOver: samples(text, 'sophos_runs_taken_over_total')['sophos_runs_taken_over_total'],
		fenced: samples(text, 'sophos_fenced_writes_refused_total')['sophos_fenced_writes_refused_total']
	};
}
/** A killed owner's run as the instance that took it over counts it: recorded interrupted, then resumed there. */
const takenOverCounts = {
	runs: { 'sophos_runs_total{status="interrupted",trigger="message"}': 1, 'sophos_runs_total{status="completed",trigger="auto-resume"}': 1 },
	takenOver: 1,
	fenced: 0
};
const settled = { timeout: 30_000, interval: 50 };

/** Waits until the conversation's runs, newest first, have these triggers and statuses. */
const runsBecome = (s: Service, conversation: string, expected: [string, string][]) =>
	vi.waitFor(async () => expect((await runsOf(s, conversation)).map((r) => [r.trigger, r.status])).toEqual(expected), {
		timeout: 30_000,
		interval: 50
	});

/** The first answer streams up to a hold; every later request answers at once. */
function firstHeld(hold: string, answer = 'All of it, as the instance that took over.') {
	let requests = 0;
	return (_request: ScriptRequest) =>
		requests++ === 0 ? { content: 'Half an answer that stops here and never', hold, holdAfterChunks: 2 } : { content: answer };
}

describe('several instances on one PostgreSQL database', () => {
	it('one active run per conversation, decided by the database: two POSTs to two instances, one 200 and one 409', async () => {
		ollama.script = () => ({ content: 'Hello.' });
		ollama.holdNext = 'first';
		const [a, b] = await instances();
		const { conversation } = (await json(await a.post('/api/chat', { message: 'start' }))).body;
		await ollama.held('first');
		const answers = await Promise.all([
			a.post('/api/chat', { conversation, message: 'from a' }).then(json),
			b.post('/api/chat', { conversation, message: 'from b' }).then(json)
		]);
		expect(answers.map((r) => r.status).sort()).toEqual([409, 409]);
		ollama.release('first');
		await followRun(a.url, conversation);
		// Now free: the two race, and exactly one wins.
		ollama.holdNext = 'second';
		const race = await Promise.all([
			a.post('/api/chat', { conversation, message: 'race a' }).then(json),
			b.post('/api/chat', { conversation, message: 'race b' }).then(json)
		]);
		expect(race.map((r) => r.status).sort()).toEqual([200, 409]);
		expect(race.find((r) => r.status === 409)!.body.error.code).toBe('SESSION_IN_PROGRESS');
		await ollama.held('second');
		ollama.release('second');
		await runsBecome(a, conversation, [
			['message', 'completed'],
			['message', 'completed']
		]);
	});

	it('a client on another instance follows the run with Last-Event-ID replay, and cancel sent there reaches the owner', async () => {
		ollama.script = firstHeld('followed');
		const [a, b] = await instances();
		const { conversation } = (await json(await a.post('/api/chat', { message: 'stream it' }))).body;
		await ollama.held('followed');
		// From B, while A holds the run: what A has published so far, then the rest as it comes, then the end.
		// And a reader reconnecting to B with Last-Event-ID 2 gets exactly what followed that id.
		// Both connected (their responses begun) before the run goes on, so both follow it live.
		const open = (headers: Record<string, string> = {}) => fetch(`${b.url}/api/chat?conversation=${conversation}`, { headers });
		const [fromStart, fromTwo] = [await open(), await open({ 'Last-Event-ID': '2' })];
		ollama.release('followed');
		const events = await readEvents(fromStart);
		const reconnected = readEvents(fromTwo);
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(tokensOf(events)).toBe('Half an answer that stops here and never');
		const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
		expect(ids).toEqual(ids.map((_, i) => ids[0]! + i));
		const replayed = (await reconnected).filter((e) => e.id !== undefined).map((e) => Number(e.id));
		expect(replayed).toEqual(ids.filter((id) => id > 2));

		ollama.script = firstHeld('cancelled');
		const second = (await json(await a.post('/api/chat', { conversation, message: 'and again' }))).body;
		await ollama.held('cancelled');
		const cancel = await json(await b.post('/api/chat', { conversation, cancel: true }));
		expect(cancel).toEqual({ status: 200, body: { conversation, run: second.run, status: 'cancelled' } });
		ollama.release('cancelled');
		expect((await runsOf(a, conversation))[0]).toMatchObject({ id: second.run, status: 'cancelled' });
	});

	it('SIGKILL of the owner mid-run: another instance takes the run over once its lease ends and resumes it (how long it takes is measured by bench/failover.ts)', async () => {
		ollama.script = firstHeld('cut');
		const receiver = await OtlpReceiver.start();
		receivers.push(receiver);
		const [a, b] = await instances({ AUTO_RESUME: 'true', OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '50' });
		const { conversation, run: dead } = (await json(await a.post('/api/chat', { message: 'go' }))).body;
		await ollama.held('cut');
		await a.kill();
		await runsBecome(b, conversation, [
			['auto-resume', 'completed'],
			['message', 'interrupted']
		]);
		expect((await runsOf(b, conversation))[1]!.error?.code).toBe('PROCESS_EXITED');
		await b.waitForOutput(/Takeover: 1 run\(s\) whose owner's lease ended/);
		// One run, two attempts: counted once, by B, which recorded the killed attempt and ran the resume.
		await vi.waitFor(async () => expect(await countsOf(b)).toEqual(takenOverCounts), settled);
		// With the lease counters PostgreSQL adds, the exposition is still one promtool accepts.
		expect(promtoolCheck(await (await b.fetch('/api/metrics')).text())).toEqual({ status: 0, output: '' });
		const after = await detail(b, conversation);
		expect(after.messages.map((m: { role: string; content: string }) => [m.role, m.content])).toEqual([
			['user', 'go'],
			['assistant', 'All of it, as the instance that took over.']
		]);
		// B's attempt is a span of its own, linked to the one A began and never ended.
		const resumed = (await runsOf(b, conversation))[0]!.id;
		await receiver.until(() => receiver.spans.some((s) => s.attributes['sophos.run.id'] === resumed));
		const span = receiver.spans.find((s) => s.attributes['sophos.run.id'] === resumed)!;
		expect(span.attributes).toMatchObject({ 'sophos.run.trigger': 'auto-resume', 'sophos.run.status': 'completed' });
		expect(span.resource['service.instance.id']).toBe('instance-1');
		expect(span.links).toEqual([attemptIds(dead)]);
		expect(receiver.spans.some((s) => s.attributes['sophos.run.id'] === dead)).toBe(false);
		// Nor is DATABASE_URL in a span or a metric.
		const exported = [...receiver.bodies.map((r) => r.body.toString()), await (await b.fetch('/api/metrics')).text()];
		for (const text of exported) expect(text).not.toContain(database.url);
	});

	it('a client on B follows a run executing on A, and keeps following on the same stream when A dies and B resumes it', async () => {
		ollama.script = firstHeld('carried');
		const [a, b] = await instances({ AUTO_RESUME: 'true' });
		const { conversation, run: dead } = (await json(await a.post('/api/chat', { message: 'go on' }))).body;
		await ollama.held('carried');
		const events: SseEvent[] = [];
		const stream = sseMessages(await fetch(`${b.url}/api/chat?conversation=${conversation}`));
		const read = async () => {
			const next = await stream.next();
			if (!next.done) events.push(next.value);
			return !next.done;
		};
		// A has kept the partial answer the client reads from B before it dies.
		while (tokensOf(events) !== 'Half an ') expect(await read()).toBe(true);
		await a.kill();
		while (await read());

		const resumed = (await runsOf(b, conversation))[0]!;
		expect(resumed).toMatchObject({ trigger: 'auto-resume', status: 'completed' });
		expect(events.at(-1)).toEqual({ id: expect.any(String), event: 'end', data: { conversation, run: resumed.id, status: 'completed' } });
		expect(events.filter((e) => e.event === 'end' || e.event === 'chat-error')).toHaveLength(1);
		expect(tokensOf(events)).toBe('Half an All of it, as the instance that took over.');
		const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
		expect(ids).toHaveLength(events.filter((e) => e.event !== 'ping').length);
		expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
		// The dead run's ids, then the resumed run's, above every id the dead run could have sent.
		expect(ids[0]).toBe(1);
		expect(ids.at(-1)).toBeGreaterThan(2 ** 32);
		expect((await runsOf(b, conversation))[1]).toMatchObject({ id: dead, status: 'interrupted' });
	});

	it('an owner paused past its lease writes nothing once another instance has taken its run over', async () => {
		const config = testMcpConfig();
		// The first step's write is made once; the second answer stops mid-stream on instance 0.
		let answers = 0;
		const tools = callsScript([{ name: 'test__effect', arguments: { item: 'paused' } }]);
		ollama.script = (request) => {
			const reply = tools(request);
			if (reply.toolCalls) return reply;
			return answers++ === 0 ? { content: 'The owner says this and then freezes', hold: 'frozen', holdAfterChunks: 2 } : { content: 'Finished elsewhere.' };
		};
		const [a, b] = await instances({ AUTO_RESUME: 'true' }, config.configDir);
		const { conversation } = (await json(await a.post('/api/chat', { message: 'save it' }))).body;
		await ollama.held('frozen');
		a.child.kill('SIGSTOP');
		await runsBecome(b, conversation, [
			['auto-resume', 'completed'],
			['message', 'interrupted']
		]);
		const db = await openServiceDb(a.options.dataDir, database.url);
		const snapshot = () =>
			Promise.all([
				db.all(`SELECT thread_key, checkpoint_id FROM lg_checkpoints ORDER BY checkpoint_id`),
				db.all(`SELECT checkpoint_id, task_id, idx FROM lg_writes ORDER BY checkpoint_id, task_id, idx`),
				db.all(`SELECT tool_call_id, attempts, outcome, run_id FROM tool_calls ORDER BY tool_call_id`),
				db.all(`SELECT id, status, error_code FROM runs ORDER BY started_at`)
			]);
		try {
			const before = await snapshot();
			// The old owner wakes up and its model answer goes on: its next heartbeat finds the run
			// taken over and stops it there, and no write of it is accepted.
			a.child.kill('SIGCONT');
			ollama.release('frozen');
			await a.waitForOutput(/was taken over by another instance/);
			await followRun(a.url, conversation);
			expect(await snapshot()).toEqual(before);
			// The old owner counts its refused outcome as a fenced write, not as a run: across the
			// two instances the run is counted once, by B.
			await vi.waitFor(async () => expect(await countsOf(a)).toEqual({ runs: {}, takenOver: 0, fenced: 1 }), settled);
			expect(await countsOf(b)).toEqual(takenOverCounts);
		} finally {
			await db.close();
		}
		const after = await detail(b, conversation);
		expect(after.messages.filter((m: { role: string }) => m.role === 'assistant').at(-1).content).toBe('Finished elsewhere.');
		// The write took effect once: the resumed step found its outcome in the journal.
		expect(config.calls().filter((l) => l.startsWith('effect'))).toHaveLength(1);
	});

	it("the queue is shared: a message queued on one instance runs after the other instance's run, and after its owner dies", async () => {
		ollama.script = firstHeld('queued');
		const [a, b] = await instances();
		const { conversation } = (await json(await a.post('/api/chat', { message: 'first' }))).body;
		await ollama.held('queued');
		const queued = await json(await b.post('/api/chat', { conversation, message: 'second', ifBusy: 'enqueue' }));
		expect(queued.status).toBe(202);
		await a.kill();
		// The instance that recovers the dead owner's run starts what waited behind it.
		await runsBecome(b, conversation, [
			['message', 'completed'],
			['message', 'interrupted']
		]);
		const after = await detail(b, conversation);
		expect(after.queue).toEqual([]);
		expect(after.messages.filter((m: { role: string }) => m.role === 'user').map((m: { content: string }) => m.content)).toEqual(['first', 'second']);
	});

	it('SIGTERM drains one instance while the others go on', async () => {
		ollama.script = firstHeld('drain', 'Answered by the instance still up.');
		// No time to finish the step: the drained run is interrupted at once, and resumable anywhere.
		const [a, b] = await instances({ SHUTDOWN_DRAIN_MS: '0' });
		const { conversation } = (await json(await a.post('/api/chat', { message: 'long one' }))).body;
		await ollama.held('drain');
		expect(await a.stop('SIGTERM')).toBe(0);
		ollama.release('drain');
		const other = (await json(await b.post('/api/chat', { message: 'meanwhile' }))).body.conversation;
		await runsBecome(b, other, [['message', 'completed']]);
		const drained = await runsOf(b, conversation);
		expect(drained.map((r) => [r.status, r.error?.code])).toEqual([['interrupted', 'SHUTDOWN']]);
		expect((await json(await b.post('/api/chat', { conversation, resume: true }))).status).toBe(200);
		await runsBecome(b, conversation, [
			['resume', 'completed'],
			['message', 'interrupted']
		]);
	});
});
