import { afterEach, describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { startInProcess } from '../support/in-process';
import { eventsOfRun, startedRun, tokensPublished } from '../support/run-events';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { answerScript, currentTurn } from '../support/scripts';

/** Says "Let me look." (held after its first chunk), calls the read-only peek tool, then answers. */
const peekThenAnswer: Script = (request) =>
	currentTurn(request).after.some((m) => m.role === 'assistant')
		? { content: 'Finished.' }
		: { content: 'Let me look.', toolCalls: [{ name: 'test__peek', arguments: {} }], hold: 'look', holdAfterChunks: 1 };

describe('run core, in process', () => {
	let ollama: ScriptedOllama | undefined;
	const runtimes: Runtime[] = [];
	const start = async (options: Parameters<typeof startInProcess>[0]) => {
		const started = await startInProcess(options);
		runtimes.push(started.runtime);
		return started;
	};
	afterEach(async () => {
		for (const rt of runtimes.splice(0)) await rt.close();
		await ollama?.close();
		ollama = undefined;
	});

	it('a message run records one outcome, ends its log with end{completed}, and every event fits the protocol', async () => {
		ollama = await ScriptedOllama.start(answerScript('Hello there, friend.'));
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation, run } = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'hi' }));
		const events = await eventsOfRun(runtime, run);
		expect(events.filter((e) => e.event === 'token').map((e) => e.data).join('')).toBe('Hello there, friend.');
		expect(events.at(-1)).toEqual({ event: 'end', id: events.length, data: { conversation, run, status: 'completed' } });
		expect((await runtime.storage.runs.get(run))).toMatchObject({ status: 'completed', trigger: 'message', input: 'hi' });
		expect(await runtime.threadWork(conversation)).toEqual({ kind: 'finished' });
		expect(runtime.runService.registry.get(conversation)).toBeUndefined();
	});

	it('drain stops at the next step boundary through the run\'s own control; a later runtime resumes the pending step', async () => {
		ollama = await ScriptedOllama.start(peekThenAnswer);
		const first = await start({ ollamaUrl: ollama.url });
		const { conversation, run } = startedRun(
			await first.runtime.runService.start({ kind: 'message', conversation: null, message: 'look around' })
		);
		const events = eventsOfRun(first.runtime, run);
		await ollama.held('look');
		const stopping = first.runtime.runService.stopAll(60_000);
		expect(first.runtime.runService.stopAll(60_000)).toBe(stopping);
		ollama.release('look');
		await stopping;
		expect((await events).at(-1)).toMatchObject({ event: 'end', data: { status: 'interrupted', cause: 'SHUTDOWN' } });
		expect((await first.runtime.storage.runs.get(run))).toMatchObject({ status: 'interrupted', error: { code: 'SHUTDOWN' } });
		expect(await first.runtime.threadWork(conversation)).toEqual({ kind: 'unfinished', pending: ['tools'], lostInput: null });
		expect(first.calls()).toEqual([]);
		expect(await first.runtime.runService.start({ kind: 'resume', conversation })).toEqual({ refused: 'shutting-down' });
		await first.runtime.close();

		const second = await start({ ollamaUrl: ollama.url, dataDir: first.dataDir });
		const resumed = startedRun(await second.runtime.runService.start({ kind: 'resume', conversation }));
		expect((await eventsOfRun(second.runtime, resumed.run)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(second.calls()).toHaveLength(1);
		const { messages } = await second.runtime.threads.state(conversation);
		expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
		expect(await second.runtime.threadWork(conversation)).toEqual({ kind: 'finished' });
		expect(await second.runtime.runService.start({ kind: 'resume', conversation })).toEqual({ refused: 'nothing-to-resume' });
	});

	it('auto-resume at start resumes a dead process\'s run whose pending tool call is safe to repeat', async () => {
		ollama = await ScriptedOllama.start(peekThenAnswer);
		const first = await start({ ollamaUrl: ollama.url });
		const { conversation } = startedRun(await first.runtime.runService.start({ kind: 'message', conversation: null, message: 'look' }));
		await ollama.held('look');
		const stopping = first.runtime.runService.stopAll(60_000);
		ollama.release('look');
		await stopping;
		// What a process that died right after claiming a resume of that thread leaves behind.
		(await first.runtime.storage.runs.claim(conversation, '5e4d3c2b-1a09-4f8e-9d7c-6b5a4f3e2d1c', new Date().toISOString(), 'resume', null));
		await first.runtime.close();

		const second = await start({ ollamaUrl: ollama.url, dataDir: first.dataDir, env: { AUTO_RESUME: 'true' } });
		const active = second.runtime.runService.registry.get(conversation);
		expect(active).toBeDefined();
		await active!.done;
		expect((await second.runtime.storage.runs.list(conversation)).map((r) => [r.trigger, r.status])).toEqual([
			['auto-resume', 'completed'],
			['resume', 'interrupted'],
			['message', 'interrupted']
		]);
		expect(second.calls()).toHaveLength(1);
	});

	it('recovery marks a dead process\'s run interrupted, and a resume sends the message a crash kept from the thread', async () => {
		ollama = await ScriptedOllama.start(answerScript('Recovered.'));
		const first = await start({ ollamaUrl: ollama.url });
		const conversation = '0b6f7a4e-5d1c-4c8e-9a57-1f2e3d4c5b6a';
		const deadRun = '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
		const at = new Date().toISOString();
		// What a process that died right after claiming its run leaves: the run row, no checkpoint.
		expect(await first.runtime.storage.conversations.createWithRun(conversation, deadRun, 'hello', at)).toBe('claimed');
		await first.runtime.close();

		const second = await start({ ollamaUrl: ollama.url, dataDir: first.dataDir });
		expect((await second.runtime.storage.runs.get(deadRun))).toMatchObject({ status: 'interrupted', error: { code: 'PROCESS_EXITED' } });
		expect(await second.runtime.threadWork(conversation)).toEqual({
			kind: 'unfinished',
			pending: [],
			lostInput: { id: deadRun, message: 'hello' }
		});
		const resumed = startedRun(await second.runtime.runService.start({ kind: 'resume', conversation }));
		await eventsOfRun(second.runtime, resumed.run);
		const { messages } = await second.runtime.threads.state(conversation);
		expect(messages.map((m) => [m.role, m.content])).toEqual([
			['user', 'hello'],
			['assistant', 'Recovered.']
		]);
		expect(messages[0]!.id).toBe(deadRun);
	});

	it('cancel aborts the model call, keeps the partial answer, and deletion waits for the run to end', async () => {
		ollama = await ScriptedOllama.start(answerScript('Partial answer that never ends', { hold: 'cut', holdAfterChunks: 3 }));
		const { runtime } = await start({ ollamaUrl: ollama.url });
		const { conversation, run } = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'talk' }));
		const events = eventsOfRun(runtime, run);
		await ollama.held('cut');
		await tokensPublished(runtime, run, 3);
		expect(await runtime.storage.conversations.delete(conversation)).toBe('running');
		expect(await runtime.runService.cancel(run)).toEqual({ conversation, run, status: 'cancelled' });
		expect((await events).at(-1)).toMatchObject({ event: 'end', data: { status: 'cancelled' } });
		expect((await runtime.threads.state(conversation)).messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Partial answ' });
		expect(await runtime.runService.cancel(run)).toEqual({ conversation, run, status: 'cancelled' });
		expect(await runtime.storage.conversations.delete(conversation)).toBe('deleted');
		expect(await runtime.storage.conversations.get(conversation)).toBeUndefined();
		expect(await runtime.storage.conversations.delete(conversation)).toBe('not-found');
	});
});
