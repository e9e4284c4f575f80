import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { inProcessTests } from '../support/in-process';
import { ScriptedOpenAI } from '../support/scripted-openai';
import type { Script } from '../support/model-script';
import { currentTurn } from '../support/scripts';
import { eventsOfRun, startedRun } from '../support/run-events';

// Issue 21, item 3: servers that number their calls per reply (`call_0` every time) made a new call
// that reused an earlier call's id be answered from the earlier call's journal entry: a write the
// person never approved was reported done, neither asked about nor made. An entry answers only the
// call it was made for (same id, step, tool and arguments); anything else is a new call.

/** One call per step, all `call_0`, then an answer: `steps[n]` is the call after n tool results. */
function reusedIds(steps: { name: string; arguments: Record<string, unknown> }[]): Script {
	return (request) => {
		const done = currentTurn(request).after.filter((m) => m.role === 'tool').length;
		const next = steps[done];
		return next ? { toolCalls: [{ ...next, id: 'call_0' }] } : { content: 'done' };
	};
}

async function send(runtime: Runtime, message: string) {
	const started = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message }));
	return { ...started, events: await eventsOfRun(runtime, started.run) };
}

const tools = async (runtime: Runtime, conversation: string) =>
	(await runtime.threads.state(conversation)).messages.filter((m) => m.role === 'tool').map((m) => ({ status: m.status, content: m.content }));

describe('a call that reuses an earlier call\'s id', () => {
	const { start } = inProcessTests();
	let model: ScriptedOpenAI | undefined;
	const startWith = async (script: Script) => {
		model?.close();
		model = await ScriptedOpenAI.start(script);
		// The test server's `effect` runs at once; `big` (no annotations) asks, as a write would.
		return start({ ollamaUrl: model.url, env: model.serviceEnv(), server: { approval: { effect: 'auto' } } });
	};

	it('is asked about where the policy says so, not answered from the earlier call\'s entry', async () => {
		const { runtime, calls } = await startWith(reusedIds([{ name: 'test__effect', arguments: { item: 'a' } }, { name: 'test__big', arguments: { size: 5 } }]));
		const first = await send(runtime, 'save a, then make something big');
		expect(first.events.find((e) => e.event === 'approval')).toMatchObject({
			data: { approvals: [{ tool: 'test__big', args: { size: 5 }, reason: { kind: 'policy' } }] }
		});
		expect(first.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		expect(calls()).toEqual([expect.stringMatching(/^effect .* a$/)]);
		expect(await tools(runtime, first.conversation)).toEqual([{ status: 'success', content: 'saved a' }]);

		const [pending] = await runtime.storage.approvals.pending(first.conversation);
		const decided = startedRun(
			await runtime.runService.start({ kind: 'decide', conversation: first.conversation, decisions: [{ toolCallId: pending!.toolCallId, action: 'approve' }] })
		);
		expect((await eventsOfRun(runtime, decided.run)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(await tools(runtime, first.conversation)).toEqual([
			{ status: 'success', content: 'saved a' },
			{ status: 'success', content: 'yyyyy' }
		]);
		model?.close();
	});

	it('is made, with an idempotency key of its own, even with the same tool and arguments at another step', async () => {
		const effect = { name: 'test__effect', arguments: { item: 'a' } };
		const { runtime, calls } = await startWith(reusedIds([effect, effect]));
		const run = await send(runtime, 'save a twice');
		expect(run.events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		const made = calls();
		expect(made).toHaveLength(2);
		const keys = made.map((line) => line.split(' ')[1]);
		expect(new Set(keys).size).toBe(2);
		expect(await tools(runtime, run.conversation)).toEqual([
			{ status: 'success', content: 'saved a' },
			{ status: 'success', content: 'saved a' }
		]);
		model?.close();
	});
});
