import { afterEach, describe, expect, it } from 'vitest';
import { startInProcess } from '../support/in-process';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { eventsOfRun, startedRun } from '../support/run-events';

type Started = Awaited<ReturnType<typeof startInProcess>>;

/** "hold X" holds its answer at X; "save …" asks for test__effect (which waits for approval) once, then answers. */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const held = /^hold (\w+)/.exec(user);
	if (held) return { content: `Held ${held[1]} answer.`, hold: held[1], holdAfterChunks: 1 };
	const items = /^save (.+)$/.exec(user)?.[1]?.split(' ') ?? [];
	return after.length === 0 && items.length
		? { toolCalls: items.map((item) => ({ name: 'test__effect', arguments: { item } })) }
		: { content: 'Finished.' };
};

describe('limits, in process', () => {
	let ollama: ScriptedOllama | undefined;
	const started: Started[] = [];
	afterEach(async () => {
		for (const s of started.splice(0)) await s.runtime.close();
		await ollama?.close();
		ollama = undefined;
	});

	it('MAX_CONCURRENT_RUNS counts a run carrying out decisions too: refused at the cap, recording nothing', async () => {
		ollama = await ScriptedOllama.start(script);
		const s = await startInProcess({ ollamaUrl: ollama.url, env: { MAX_CONCURRENT_RUNS: '1' } });
		started.push(s);
		const { runtime } = s;
		const waiting = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'save a' }));
		expect((await eventsOfRun(runtime, waiting.run)).at(-1)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		const [pending] = (await runtime.storage.approvals.pending(waiting.conversation));

		const holder = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'hold H' }));
		await ollama.held('H');
		const decisions = [{ toolCallId: pending!.toolCallId, action: 'approve' as const }];
		expect(await runtime.runService.start({ kind: 'decide', conversation: waiting.conversation, decisions })).toEqual({
			refused: 'full',
			maxConcurrentRuns: 1
		});
		expect((await runtime.storage.approvals.pending(waiting.conversation))).toHaveLength(1);
		expect((await runtime.storage.runs.list(waiting.conversation)).map((r) => r.status)).toEqual(['waiting']);
		expect(s.calls()).toEqual([]);

		ollama.release('H');
		await runtime.runService.registry.getById(holder.run)?.done;
		const decided = startedRun(await runtime.runService.start({ kind: 'decide', conversation: waiting.conversation, decisions }));
		expect((await eventsOfRun(runtime, decided.run)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(s.calls()).toEqual([expect.stringMatching(/^effect .* a$/)]);
	});

	it('MAX_TOOL_CALLS_PER_STEP: a call past the cap asks nobody and runs nothing', async () => {
		ollama = await ScriptedOllama.start(script);
		const s = await startInProcess({ ollamaUrl: ollama.url, env: { MAX_TOOL_CALLS_PER_STEP: '1' } });
		started.push(s);
		const { runtime } = s;
		const first = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message: 'save a b c' }));
		const events = await eventsOfRun(runtime, first.run);
		const approval = events.find((e) => e.event === 'approval');
		expect(approval).toMatchObject({ data: { approvals: [{ tool: 'test__effect', args: { item: 'a' } }] } });
		const [pending] = (await runtime.storage.approvals.pending(first.conversation));
		const decided = startedRun(
			await runtime.runService.start({
				kind: 'decide',
				conversation: first.conversation,
				decisions: [{ toolCallId: pending!.toolCallId, action: 'approve' }]
			})
		);
		expect((await eventsOfRun(runtime, decided.run)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(s.calls()).toEqual([expect.stringMatching(/^effect .* a$/)]);
		const tools = (await runtime.threads.state(first.conversation)).messages.filter((m) => m.role === 'tool');
		expect(tools.map((t) => t.status)).toEqual(['success', 'error', 'error']);
		expect(tools[1]!.content).toMatch(/^Not run: at most 1 tool calls are made per step \(MAX_TOOL_CALLS_PER_STEP\)/);
	});
});
