import { describe, expect, it } from 'vitest';
import type { RunRecord, RunStatus, RunTrigger } from '../../../src/lib/protocol';
import { ApiError } from '../../../src/lib/server/errors';
import { parseRunCreate, readRunCreate } from '../../../src/lib/server/agent-protocol/run-create';
import { runIdOfMessage } from '../../../src/lib/server/agent-protocol/run-id-of-message';
import { RunStreamTranslator } from '../../../src/lib/server/agent-protocol/run-stream';
import { chainOf, protocolRunIds, protocolRunOf } from '../../../src/lib/server/agent-protocol/run-view';
import type { ThreadValues } from '../../../src/lib/server/agent-protocol/protocol-dtos';

const run = (id: string, trigger: RunTrigger, status: RunStatus): RunRecord => ({
	id,
	trigger,
	status,
	input: null,
	error: null,
	startedAt: `2026-01-01T00:00:0${id.length}Z`,
	finishedAt: null
});

const read = (body: object) => readRunCreate(parseRunCreate({ assistant_id: 'agent', ...body }), 1000);
const codeOf = (f: () => unknown) => {
	try {
		f();
	} catch (e) {
		return e instanceof ApiError ? `${e.code}: ${e.message}` : String(e);
	}
	return 'no error';
};

describe('protocol runs over Sophos runs', () => {
	it('makes a cut-short run and the resumes that carried it on one run, never success before its end', () => {
		// Newest first, as storage lists them.
		const runs = [run('d', 'message', 'completed'), run('c', 'auto-resume', 'running'), run('b', 'message', 'interrupted'), run('a', 'message', 'completed')];
		expect(chainOf(runs, 'b').map((r) => r.id)).toEqual(['b', 'c']);
		expect(protocolRunOf('t', chainOf(runs, 'b'))).toMatchObject({ run_id: 'b', status: 'running', kwargs: { attempt: 2 } });
		expect(chainOf(runs, 'a').map((r) => r.id)).toEqual(['a']);
		expect(protocolRunIds(runs)).toEqual(['d', 'b', 'a']);
		expect(protocolRunOf('t', [run('x', 'message', 'interrupted')]).status).toBe('interrupted');
		expect(protocolRunOf('t', [run('x', 'message', 'waiting')]).status).toBe('success');
		expect(protocolRunOf('t', [run('x', 'message', 'failed')]).status).toBe('error');
	});

	it('reads a body: a message, a resume, decisions, a fork; reject by default', () => {
		expect(read({ input: { messages: [{ type: 'human', content: [{ type: 'text', text: 'hi' }], id: 'm1' }] } })).toMatchObject({
			intent: { kind: 'message', text: 'hi', clientMessageId: 'm1', checkpointId: null },
			options: { multitask: 'reject', ifBusy: 'reject', onDisconnect: 'continue', streamModes: ['values'] }
		});
		expect(read({ input: null }).intent).toEqual({ kind: 'no-input', checkpointId: null });
		expect(read({ checkpoint: { checkpoint_id: 'c1' } }).intent).toEqual({ kind: 'no-input', checkpointId: 'c1' });
		expect(read({ command: { resume: { decisions: [{ type: 'approve' }] } } }).intent).toMatchObject({ kind: 'decide', interruptId: null });
		expect(read({ command: { resume: { i1: { decisions: [{ type: 'reject', message: 'no' }] } } } }).intent).toMatchObject({ kind: 'decide', interruptId: 'i1' });
		expect(read({ command: { goto: '__end__' } }).intent).toMatchObject({ kind: 'deny-all' });
		expect(read({ input: { messages: [{ type: 'tool', tool_call_id: 'x', content: 'Successfully handled tool call.' }] } }).intent).toMatchObject({ kind: 'deny-all' });
		expect(read({ input: { messages: [{ type: 'human', content: 'x' }] }, multitask_strategy: 'rollback' }).options.ifBusy).toBe('interrupt');
	});

	it('refuses what means nothing, naming the field', () => {
		expect(codeOf(() => read({ input: { messages: [{ type: 'human', content: 'a' }, { type: 'human', content: 'b' }] } }))).toMatch(/^VALIDATION_FAILED: .*input\.messages/);
		expect(codeOf(() => read({ input: { messages: [{ type: 'ai', content: 'a' }] } }))).toMatch(/^VALIDATION_FAILED: .*input\.messages\.0\.type/);
		expect(codeOf(() => read({ input: { messages: [{ type: 'human', content: 'x'.repeat(1001) }] } }))).toMatch(/^MESSAGE_TOO_LARGE/);
		expect(codeOf(() => read({ command: { update: { messages: [] } } }))).toMatch(/^NOT_IMPLEMENTED/);
		expect(codeOf(() => read({ command: { goto: '__end__' }, checkpoint: { checkpoint_id: 'c' } }))).toMatch(/^VALIDATION_FAILED: .*checkpoint/);
		expect(codeOf(() => parseRunCreate({ assistant_id: 'agent', webhook: 'http://x' }))).toMatch(/^NOT_IMPLEMENTED: "webhook"/);
	});

	it('derives one run id per thread and client message id', () => {
		const a = runIdOfMessage('t1', 'm1');
		expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
		expect(runIdOfMessage('t1', 'm1')).toBe(a);
		expect(runIdOfMessage('t2', 'm1')).not.toBe(a);
		expect(runIdOfMessage('t1', 'm2')).not.toBe(a);
	});

	it('tags every token with its answer id, sends nothing up to Last-Event-ID, and ids the last frame of a group', async () => {
		const values: ThreadValues = { messages: [{ type: 'human', id: 'h', content: 'q', additional_kwargs: {}, response_metadata: {} }] };
		const translator = new RunStreamTranslator({ threadId: 't', runId: 'r', attempt: 1, modes: ['messages-tuple', 'values', 'updates'], after: 2, values: async () => values });
		const enter = { event: 'trace', data: { step: 1, name: 'm', node: 'agent', event: 'enter', data: { messageId: 'a1' } } } as const;
		expect(await translator.translate(enter, 1)).toBe('');
		expect(await translator.translate({ event: 'token', data: 'He' }, 2)).toBe('');
		const token = await translator.translate({ event: 'token', data: 'llo' }, 3);
		expect(token).toBe(`id: 3\nevent: messages\ndata: ${JSON.stringify([
			{ type: 'AIMessageChunk', id: 'a1', content: 'llo', additional_kwargs: {}, response_metadata: {}, tool_call_chunks: [] },
			{ langgraph_node: 'agent', langgraph_step: 1, run_id: 'r', thread_id: 't' }
		])}\n\n`);
		values.messages.push({ type: 'ai', id: 'a1', content: 'Hello', additional_kwargs: {}, response_metadata: {}, tool_calls: [], invalid_tool_calls: [] });
		const leave = await translator.translate({ event: 'trace', data: { step: 1, name: 'm', node: 'agent', event: 'leave' } }, 4);
		const frames = leave.trim().split('\n\n');
		expect(frames.map((f) => f.split('\n').find((l) => l.startsWith('event:')))).toEqual(['event: updates', 'event: values']);
		expect(frames[0]).not.toMatch(/^id:/);
		expect(frames[1]).toMatch(/^id: 4\n/);
		expect(await translator.translate({ event: 'chat-error', data: { code: 'MODEL_UNREACHABLE', message: 'down' } }, 5)).toBe(
			`id: 5\nevent: error\ndata: ${JSON.stringify({ error: 'MODEL_UNREACHABLE', message: 'down' })}\n\n`
		);
		expect(translator.isEnded).toBe(true);
	});

	it("sends each step's update though a read showed its messages first: the thread read as the client began, or a step's end read that found the next step stored", async () => {
		const human = { type: 'human', id: 'h', content: 'q', additional_kwargs: {}, response_metadata: {} } as const;
		const answer = { type: 'ai', id: 'a1', content: '', additional_kwargs: {}, response_metadata: {}, tool_calls: [{ id: 'c1', name: 'peek', args: {} }], invalid_tool_calls: [] } as const;
		const older = { type: 'tool', id: 'old', content: 'before', tool_call_id: 'c0', name: 'peek', status: 'success', additional_kwargs: {}, response_metadata: {} } as const;
		const result = { type: 'tool', id: 't1', content: 'all quiet', tool_call_id: 'c1', name: 'peek', status: 'success', additional_kwargs: {}, response_metadata: {} } as const;
		// Every read finds both steps of the run stored already, and an older call's result.
		const values = { messages: [human, older, answer, result] } as unknown as ThreadValues;
		const translator = new RunStreamTranslator({ threadId: 't', runId: 'r', attempt: 1, modes: ['updates'], after: 0, values: async () => values });
		translator.knowFrom(values);
		const updates = async (event: Parameters<typeof translator.translate>[0], id: number) =>
			(await translator.translate(event, id))
				.trim()
				.split('\n\n')
				.filter((f) => f.includes('event: updates'))
				.map((f) => JSON.parse(f.split('data: ')[1]!) as Record<string, { messages: { id: string }[] }>);
		const trace = (node: string, event: string, data?: Record<string, unknown>) => ({ event: 'trace', data: { step: 1, name: 'peek', node, event, ...(data ? { data } : {}) } }) as const;
		await translator.translate(trace('agent', 'enter', { messageId: 'a1' }) as never, 1);
		await translator.translate(trace('tools', 'call', { name: 'peek', arguments: {}, tool_call_id: 'c1' }) as never, 2);
		expect(await updates(trace('agent', 'leave') as never, 3)).toEqual([{ agent: { messages: [expect.objectContaining({ id: 'a1' })] } }]);
		await translator.translate(trace('tools', 'enter') as never, 4);
		// The tools step's update holds its own call's result, not the older one the client had.
		expect(await updates(trace('tools', 'leave') as never, 5)).toEqual([{ tools: { messages: [expect.objectContaining({ id: 't1' })] } }]);
	});

	it('drops a replayed stretch of merged text that began before Last-Event-ID, rather than repeat it', async () => {
		const translator = new RunStreamTranslator({ threadId: 't', runId: 'r', attempt: 1, modes: ['messages-tuple'], after: 5, values: async () => ({ messages: [] }) });
		await translator.translate({ event: 'trace', data: { step: 1, name: 'm', node: 'agent', event: 'enter', data: { messageId: 'a1' } } }, 1);
		// Events 2..9 merged into one frame with the last id: the client had 2..5.
		expect(await translator.translate({ event: 'token', data: 'merged text' }, 9)).toBe('');
		expect(await translator.translate({ event: 'token', data: '!' }, 10)).toMatch(/"content":"!"/);
	});
});
