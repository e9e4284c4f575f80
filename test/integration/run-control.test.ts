import { afterEach, describe, expect, it, vi } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript, callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun, readEvents, sseMessages, tokensOf, type SseEvent } from '../support/sse';
import { testMcpConfig, waitForLine } from '../support/test-config';

type Detail = {
	conversation: { status: string; messageCount: number };
	messages: { id: string; role: string; content: string; status?: string; name?: string; toolCallId?: string; toolCalls?: { id: string }[] }[];
	resumable: boolean;
	queue: { id: string; message: string }[];
};

const detailOf = async (service: Service, id: string): Promise<Detail> => (await service.fetch(`/api/conversations/${id}`)).json();
const runsOf = async (service: Service, id: string) =>
	(await (await service.fetch(`/api/conversations/${id}/runs`)).json()).runs as { id: string; status: string; trigger: string; error: { code: string } | null }[];
/** Waits until the conversation's runs, newest first, have ended with these statuses. */
const runsEnd = (service: Service, conversation: string, statuses: string[]) =>
	vi.waitFor(async () => expect((await runsOf(service, conversation)).map((r) => r.status)).toEqual(statuses), {
		timeout: 30_000,
		interval: 50
	});

/** Reads a live stream until `count` tokens have arrived, i.e. the service has published them. */
async function untilTokens(service: Service, conversation: string, count: number) {
	const res = await service.fetch(`/api/chat?conversation=${conversation}`);
	const events = sseMessages(res);
	let seen = 0;
	for await (const e of events) if (e.event === 'token' && ++seen === count) break;
	await events.return(undefined);
}

describe('run control', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await ollama?.close();
		service = ollama = undefined;
	});

	it('cancel during the model stream keeps the text streamed so far and ends with end{cancelled}', async () => {
		ollama = await ScriptedOllama.start(answerScript('Partial answer that never ends', { hold: 'cancel-me', holdAfterChunks: 3 }));
		service = await Service.start({ ollamaUrl: ollama.url });
		const { conversation, run } = await (await service.post('/api/chat', { message: 'talk' })).json();
		await untilTokens(service, conversation, 3);
		const stream = await service.fetch(`/api/chat?conversation=${conversation}`);

		const cancel = await service.post(`/api/runs/${run}/cancel`, {});
		expect(cancel.status).toBe(200);
		expect(await cancel.json()).toEqual({ conversation, run, status: 'cancelled' });
		const events = await readEvents(stream);
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { conversation, run, status: 'cancelled' } });
		expect(tokensOf(events)).toBe('Partial answ');

		const detail = await detailOf(service, conversation);
		expect(detail.messages.map((m) => [m.role, m.content])).toEqual([
			['user', 'talk'],
			['assistant', 'Partial answ']
		]);
		expect(detail.conversation).toMatchObject({ status: 'cancelled', messageCount: 2 });
		expect(detail.resumable).toBe(false);

		// Twice is harmless, as is the conversation form, and both report the one recorded outcome.
		expect(await (await service.post(`/api/runs/${run}/cancel`, {})).json()).toEqual({ conversation, run, status: 'cancelled' });
		expect(await (await service.post('/api/chat', { cancel: true, conversation })).json()).toEqual({ conversation, run, status: 'cancelled' });
		expect((await runsOf(service, conversation)).map((r) => r.status)).toEqual(['cancelled']);
		ollama.release('cancel-me');
	});

	it('cancel of a finished run reports how it ended; bad and unknown ids are refused', async () => {
		ollama = await ScriptedOllama.start(answerScript('Done.'));
		service = await Service.start({ ollamaUrl: ollama.url });
		const { conversation, run } = await (await service.post('/api/chat', { message: 'quick' })).json();
		await followRun(service.url, conversation);
		expect(await (await service.post(`/api/runs/${run}/cancel`, {})).json()).toEqual({ conversation, run, status: 'completed' });
		expect((await service.post('/api/runs/not-a-uuid/cancel', {})).status).toBe(400);
		expect((await service.post('/api/runs/0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11/cancel', {})).status).toBe(404);
		expect((await service.post('/api/chat', { cancel: true })).status).toBe(400);
		expect((await service.post('/api/chat', { cancel: true, conversation: '0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11' })).status).toBe(404);
	});

	it('cancel during a tool call cancels it on the MCP server; a new message then closes the open call', async () => {
		const config = testMcpConfig();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__hang', arguments: {} }]));
		service = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir });
		const { conversation, run } = await (await service.post('/api/chat', { message: 'hang' })).json();
		const started = await waitForLine(config.log, /^hang started/);
		expect((await (await service.post(`/api/runs/${run}/cancel`, {})).json()).status).toBe('cancelled');
		await waitForLine(config.log, new RegExp(`^hang cancelled ${started.split(' ')[2]}$`));

		const before = await detailOf(service, conversation);
		expect(before.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
		expect(before.resumable).toBe(true);

		ollama.script = answerScript('Moving on.');
		await service.post('/api/chat', { conversation, message: 'never mind' });
		await followRun(service.url, conversation);
		const after = await detailOf(service, conversation);
		const callId = before.messages[1]!.toolCalls![0]!.id;
		expect(after.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user', 'assistant']);
		expect(after.messages[2]).toMatchObject({ toolCallId: callId, status: 'error', content: 'Not run: the conversation moved on.' });
		// What the model was sent is a valid history: the call is answered before the new message.
		expect(ollama.requests.at(-1)!.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
		expect(config.calls().filter((l) => l.startsWith('hang started'))).toHaveLength(1);
	});

	it('ifBusy "enqueue" stores the message and starts it when the active run ends', async () => {
		ollama = await ScriptedOllama.start(answerScript('First.', { hold: 'first', holdAfterChunks: 1 }));
		service = await Service.start({ ollamaUrl: ollama.url });
		const { conversation } = await (await service.post('/api/chat', { message: 'one' })).json();
		await ollama.held('first');
		const queued = await service.post('/api/chat', { conversation, message: 'two', ifBusy: 'enqueue' });
		expect(queued.status).toBe(202);
		const { queued: queuedId } = await queued.json();
		expect((await detailOf(service, conversation)).queue).toEqual([{ id: queuedId, message: 'two', createdAt: expect.any(String) }]);
		const second = await service.fetch(`/api/chat?conversation=${conversation}`);
		ollama.script = answerScript('Second.');
		ollama.release('first');
		await readEvents(second);
		// The first stream ended with the first run; the queued run is started after it, once its
		// outcome is recorded, so the test waits for it to have run rather than guessing when it starts.
		await runsEnd(service, conversation, ['completed', 'completed']);
		const detail = await detailOf(service, conversation);
		expect(detail.messages.map((m) => m.content)).toEqual(['one', 'First.', 'two', 'Second.']);
		expect(detail.queue).toEqual([]);
		expect((await runsOf(service, conversation)).map((r) => r.status)).toEqual(['completed', 'completed']);
	});

	it('a queued message survives a crash and starts after the restart', async () => {
		ollama = await ScriptedOllama.start(answerScript('Cut short here.', { hold: 'crash', holdAfterChunks: 1 }));
		service = await Service.start({ ollamaUrl: ollama.url });
		const { conversation } = await (await service.post('/api/chat', { message: 'one' })).json();
		await ollama.held('crash');
		expect((await service.post('/api/chat', { conversation, message: 'two', ifBusy: 'enqueue' })).status).toBe(202);
		await service.kill();
		ollama.release('crash');
		ollama.script = answerScript('After restart.');
		service = await service.restart();
		// Started after recovery, in the background: waited for, as it may not be claimed yet.
		await runsEnd(service, conversation, ['completed', 'interrupted']);
		const detail = await detailOf(service, conversation);
		expect(detail.queue).toEqual([]);
		expect(detail.messages.map((m) => [m.role, m.content])).toEqual([
			['user', 'one'],
			['user', 'two'],
			['assistant', 'After restart.']
		]);
		expect((await runsOf(service, conversation)).map((r) => r.status)).toEqual(['completed', 'interrupted']);
	});

	it('ifBusy "interrupt" cancels the active run and starts the new message', async () => {
		ollama = await ScriptedOllama.start(answerScript('Old answer going on', { hold: 'old', holdAfterChunks: 2 }));
		service = await Service.start({ ollamaUrl: ollama.url });
		const { conversation, run: first } = await (await service.post('/api/chat', { message: 'old' })).json();
		await untilTokens(service, conversation, 2);
		ollama.script = answerScript('New answer.');
		const res = await service.post('/api/chat', { conversation, message: 'new', ifBusy: 'interrupt' });
		expect(res.status).toBe(200);
		const { run: second } = await res.json();
		expect(second).not.toBe(first);
		await followRun(service.url, conversation);
		const runs = await runsOf(service, conversation);
		expect(runs.map((r) => [r.id, r.status])).toEqual([
			[second, 'completed'],
			[first, 'cancelled']
		]);
		expect((await detailOf(service, conversation)).messages.map((m) => m.content)).toEqual(['old', 'Old answ', 'new', 'New answer.']);
		ollama.release('old');
	});

	it('drain: SIGTERM lets the step in flight finish, stops at the next step boundary, exits 0', async () => {
		const config = testMcpConfig();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));
		ollama.script = (request) => ({ ...callsScript([{ name: 'test__peek', arguments: {} }])(request), content: 'Looking', hold: 'step', holdAfterChunks: 1 });
		service = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { SHUTDOWN_DRAIN_MS: '60000' } });
		const { conversation, run } = await (await service.post('/api/chat', { message: 'peek' })).json();
		const stream = await service.fetch(`/api/chat?conversation=${conversation}`);
		await ollama.held('step');
		const exit = service.stop('SIGTERM');
		await service.waitForOutput(/SIGTERM: shutting down/);
		ollama.release('step');
		expect(await exit).toBe(0);
		expect((await readEvents(stream)).at(-1)).toMatchObject({ event: 'end', data: { run, status: 'interrupted', cause: 'SHUTDOWN' } });
		expect(config.calls()).toEqual([]);

		service = await service.restart();
		const detail = await detailOf(service, conversation);
		// The model's step finished and was saved; the tools step had not begun.
		expect(detail.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
		expect(detail.resumable).toBe(true);
		ollama.script = callsScript([{ name: 'test__peek', arguments: {} }]);
		await service.post('/api/chat', { conversation, resume: true });
		await followRun(service.url, conversation);
		expect((await detailOf(service, conversation)).messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
		expect(config.calls().filter((l) => l.startsWith('peek'))).toHaveLength(1);
	});

	it('drain: a step still running at SHUTDOWN_DRAIN_MS is aborted and the run recorded interrupted', async () => {
		ollama = await ScriptedOllama.start(answerScript('Never finishes', { hold: 'stuck', holdAfterChunks: 1 }));
		service = await Service.start({ ollamaUrl: ollama.url, env: { SHUTDOWN_DRAIN_MS: '200' } });
		const { conversation } = await (await service.post('/api/chat', { message: 'stuck' })).json();
		await ollama.held('stuck');
		expect(await service.stop('SIGTERM')).toBe(0);
		ollama.release('stuck');
		service = await service.restart();
		const detail = await detailOf(service, conversation);
		expect(detail.conversation.status).toBe('interrupted');
		expect((await runsOf(service, conversation))[0]!.error!.code).toBe('SHUTDOWN');
		expect(detail.resumable).toBe(true);
	});

	it('AUTO_RESUME=true resumes an interrupted model step at start', async () => {
		ollama = await ScriptedOllama.start(answerScript('Answer after the crash.', { hold: 'crash', holdAfterChunks: 1 }));
		service = await Service.start({ ollamaUrl: ollama.url, env: { AUTO_RESUME: 'true' } });
		const { conversation } = await (await service.post('/api/chat', { message: 'survive' })).json();
		await ollama.held('crash');
		await service.kill();
		ollama.script = answerScript('Answer after the crash.');
		service = await service.restart();
		await followRun(service.url, conversation);
		const runs = await runsOf(service, conversation);
		expect(runs.map((r) => [r.trigger, r.status])).toEqual([
			['auto-resume', 'completed'],
			['message', 'interrupted']
		]);
		expect((await detailOf(service, conversation)).messages.map((m) => m.content)).toEqual(['survive', 'Answer after the crash.']);
	});
	it('AUTO_RESUME=true: a page that reconnects with the dead run\'s Last-Event-ID gets the resumed run whole', async () => {
		ollama = await ScriptedOllama.start(answerScript('Cut short here.', { hold: 'crash', holdAfterChunks: 2 }));
		service = await Service.start({ ollamaUrl: ollama.url, env: { AUTO_RESUME: 'true' } });
		const { conversation } = await (await service.post('/api/chat', { message: 'survive' })).json();
		await ollama.held('crash');
		// The page's stream, read up to the dead run's last event; then the service dies.
		const page = sseMessages(await service.fetch(`/api/chat?conversation=${conversation}`));
		const seen: SseEvent[] = [];
		while (tokensOf(seen) !== 'Cut shor') seen.push((await page.next()).value!);
		await page.return(undefined);
		await service.kill();
		const lastEventId = Number(seen.at(-1)!.id);

		// The resumed run has published more events than the dead run had when the page comes back.
		ollama.script = answerScript('Answer after the crash.', { hold: 'resumed', holdAfterChunks: 3 });
		service = await service.restart();
		await untilTokens(service, conversation, 3);
		const reconnected = readEvents(await service.fetch(`/api/chat?conversation=${conversation}`, { headers: { 'Last-Event-ID': String(lastEventId) } }));
		ollama.release('resumed');
		const events = await reconnected;
		const [resumed] = await runsOf(service, conversation);
		expect(resumed).toMatchObject({ trigger: 'auto-resume', status: 'completed' });
		expect(events[0]).toMatchObject({ event: 'trace', data: { event: 'enter' } });
		expect(tokensOf(events)).toBe('Answer after the crash.');
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { run: resumed!.id, status: 'completed' } });
		const ids = events.filter((e) => e.id !== undefined).map((e) => Number(e.id));
		expect(ids[0]).toBeGreaterThan(lastEventId);
		expect(ids.every((id, i) => i === 0 || id > ids[i - 1]!)).toBe(true);
	});
});
