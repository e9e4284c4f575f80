import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ConversationDetailSchema, ConversationSummarySchema, EVENT_DATA, RunRecordSchema, type ConversationDetail } from '../../src/lib/protocol';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { followRun, type SseEvent } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

function expectShape(schema: z.ZodType, body: unknown): void {
	const parsed = schema.safeParse(body);
	expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
	expect(parsed.data).toEqual(body);
}

/** "save <item>" calls the test server's non-idempotent write, then answers; other messages are answered. */
const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const save = /^save (\w+)/.exec(user);
	if (save && !after.some((m) => m.role === 'tool')) return { toolCalls: [{ name: 'test__effect', arguments: { item: save[1] } }] };
	return { content: `Answer ${request.messages.length} to ${user}.` };
};

const said = (detail: ConversationDetail) => detail.messages.map((m) => `${m.role}: ${m.content}`);

describe('branching through the service', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	const config = testMcpConfig();
	const detail = async (id: string): Promise<ConversationDetail> => {
		const body = await (await service.fetch(`/api/conversations/${id}`)).json();
		expectShape(ConversationDetailSchema, body);
		return body;
	};
	const start = async (body: unknown): Promise<SseEvent[]> => {
		const res = await service.post('/api/chat', body);
		expect(res.status, JSON.stringify(await res.clone().json())).toBe(200);
		const { conversation } = await res.json();
		return followRun(service.url, conversation);
	};
	const errorOf = async (res: Response) => ({ status: res.status, ...((await res.json()) as { error: { code: string; message: string } }) });

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script);
		service = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('edit, regenerate and branch speak the protocol; list, export and counts follow the active branch', async () => {
		const first = await (await service.post('/api/chat', { message: 'one' })).json();
		const conversation: string = first.conversation;
		await followRun(service.url, conversation);
		await start({ conversation, message: 'two' });
		const [, , two, answer] = (await detail(conversation)).messages;

		const edited = await start({ conversation, message: 'dos', editOf: two!.id });
		expect(edited.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		for (const e of edited) expectShape(EVENT_DATA[e.event as keyof typeof EVENT_DATA], e.data);
		let now = await detail(conversation);
		expect(said(now)).toEqual(['user: one', 'assistant: Answer 2 to one.', 'user: dos', 'assistant: Answer 4 to dos.']);
		expect(now.messages[2]!.versions).toEqual({ index: 1, count: 2, ids: [two!.id, now.messages[2]!.id] });

		await start({ conversation, regenerate: now.messages[3]!.id });
		now = await detail(conversation);
		expect(now.messages[3]!.versions).toMatchObject({ index: 1, count: 2 });
		const { runs } = await (await service.fetch(`/api/conversations/${conversation}/runs`)).json();
		for (const record of runs) expectShape(RunRecordSchema, record);
		expect(runs.map((r: { trigger: string }) => r.trigger)).toEqual(['regenerate', 'edit', 'message', 'message']);

		const switched = await service.post(`/api/conversations/${conversation}/branch`, { messageId: answer!.id });
		expect(switched.status).toBe(200);
		const back: ConversationDetail = await switched.json();
		expectShape(ConversationDetailSchema, back);
		expect(said(back)).toEqual(['user: one', 'assistant: Answer 2 to one.', 'user: two', 'assistant: Answer 4 to two.']);
		expect(back).toEqual(await detail(conversation));
		expect(back.conversation.messageCount).toBe(4);
		const listed = (await (await service.fetch('/api/conversations')).json()).conversations.find((c: { id: string }) => c.id === conversation);
		expectShape(ConversationSummarySchema, listed);
		expect(listed.messageCount).toBe(4);

		const markdown = await (await service.fetch(`/api/conversations/${conversation}/export`)).text();
		expect(markdown).toContain('two');
		expect(markdown).not.toContain('dos');
		const lines = async (query: string) =>
			(await (await service.fetch(`/api/conversations/${conversation}/export?format=jsonl${query}`)).text())
				.trim()
				.split('\n')
				.map((l) => JSON.parse(l) as { checkpoint_id: string; parent_checkpoint_id: string | null; last_message: { content: string } | null });
		const active = await lines('');
		const all = await lines('&branches=all');
		// Two turns of three checkpoints; the edit and the regenerate forked off with three and two more.
		expect(active).toHaveLength(6);
		expect(all).toHaveLength(11);
		expect(active.at(-1)!.last_message!.content).toBe('Answer 4 to two.');
		for (const [i, line] of active.entries()) expect(line.parent_checkpoint_id).toBe(i === 0 ? null : active[i - 1]!.checkpoint_id);
		const ids = new Set(all.map((l) => l.checkpoint_id));
		for (const line of all) if (line.parent_checkpoint_id) expect(ids.has(line.parent_checkpoint_id)).toBe(true);
	});

	it('refuses bad branch requests clearly and changes nothing', async () => {
		const first = await (await service.post('/api/chat', { message: 'hello' })).json();
		const conversation: string = first.conversation;
		await followRun(service.url, conversation);
		const before = await detail(conversation);
		const [user, assistant] = before.messages;
		const unknown = '0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11';
		const cases: [string, string, unknown, number, string][] = [
			['an edit of an unknown message', '/api/chat', { conversation, message: 'x', editOf: 'nope' }, 404, 'NOT_FOUND'],
			['an edit of an answer', '/api/chat', { conversation, message: 'x', editOf: assistant!.id }, 400, 'BAD_REQUEST'],
			['a regenerate of a user message', '/api/chat', { conversation, regenerate: user!.id }, 400, 'BAD_REQUEST'],
			['an edit in an unknown conversation', '/api/chat', { conversation: unknown, message: 'x', editOf: user!.id }, 404, 'NOT_FOUND'],
			['a switch to an unknown message', `/api/conversations/${conversation}/branch`, { messageId: 'nope' }, 404, 'NOT_FOUND'],
			['a switch without a messageId', `/api/conversations/${conversation}/branch`, {}, 400, 'BAD_REQUEST'],
			['a switch with more fields', `/api/conversations/${conversation}/branch`, { messageId: user!.id, also: 1 }, 400, 'BAD_REQUEST'],
			['a switch in an unknown conversation', `/api/conversations/${unknown}/branch`, { messageId: user!.id }, 404, 'NOT_FOUND'],
			['a switch in a bad conversation id', '/api/conversations/nope/branch', { messageId: user!.id }, 400, 'BAD_REQUEST']
		];
		for (const [what, path, body, status, code] of cases) {
			expect(await errorOf(await service.post(path, body)), what).toMatchObject({ status, error: { code } });
		}
		const branches = await errorOf(await service.fetch(`/api/conversations/${conversation}/export?format=jsonl&branches=some`));
		expect(branches).toMatchObject({ status: 400, error: { code: 'BAD_REQUEST' } });
		expect(await detail(conversation)).toEqual(before);
	});

	it('a crash during a branch run resumes on its branch; the write a regenerate repeats takes effect once', async () => {
		const first = await (await service.post('/api/chat', { message: 'save a' })).json();
		const conversation: string = first.conversation;
		await followRun(service.url, conversation);
		const [user, asked] = (await detail(conversation)).messages;
		expect(config.calls().filter((l) => l.startsWith('effect'))).toHaveLength(1);
		await service.stop();

		// The regenerate's model step asks for the same write; its answer step is where the process dies.
		service = await service.restart({ SOPHOS_CRASH_AT: 'mid-model-stream' });
		const regenerate = await service.post('/api/chat', { conversation, regenerate: asked!.id });
		expect(regenerate.status).toBe(200);
		await service.crashed();
		expect(service.child.signalCode).toBe('SIGKILL');
		service = await service.restart({ SOPHOS_CRASH_AT: '' });
		const interrupted = await detail(conversation);
		expect(interrupted.resumable).toBe(true);
		expect(interrupted.conversation.status).toBe('interrupted');
		// Away to the first branch and back: the interrupted branch keeps its pending step.
		expect((await service.post(`/api/conversations/${conversation}/branch`, { messageId: asked!.id })).status).toBe(200);
		expect((await detail(conversation)).resumable).toBe(false);
		expect((await service.post(`/api/conversations/${conversation}/branch`, { messageId: interrupted.messages[1]!.id })).status).toBe(200);
		expect((await detail(conversation)).resumable).toBe(true);
		await start({ conversation, resume: true });
		const done = await detail(conversation);
		expect(done.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
		expect(done.messages[1]!.versions).toMatchObject({ count: 2 });
		expect(done.messages[2]).toMatchObject({ content: 'saved a', reusedFrom: { toolCallId: asked!.toolCalls![0]!.id, messageId: asked!.id } });
		expect(config.calls().filter((l) => l.startsWith('effect'))).toHaveLength(1);

		// An edit whose process dies right after its claim: its message is sent from the fork point on resume.
		await service.stop();
		service = await service.restart({ SOPHOS_CRASH_AT: 'after-run-insert' });
		await service.post('/api/chat', { conversation, message: 'never mind', editOf: user!.id }).catch(() => undefined);
		await service.crashed();
		service = await service.restart({ SOPHOS_CRASH_AT: '' });
		const lost = await detail(conversation);
		expect(lost.resumable).toBe(true);
		expect(lost.messages).toEqual([]);
		await start({ conversation, resume: true });
		const resent = await detail(conversation);
		expect(said(resent)).toEqual(['user: never mind', 'assistant: Answer 2 to never mind.']);
		expect(resent.messages[0]!.versions).toEqual({ index: 1, count: 2, ids: [user!.id, resent.messages[0]!.id] });
		const runs = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs as { status: string; trigger: string }[];
		expect(runs.map((r) => `${r.trigger} ${r.status}`)).toEqual([
			'resume completed',
			'edit interrupted',
			'resume completed',
			'regenerate interrupted',
			'message completed'
		]);
		expect(config.calls().filter((l) => l.startsWith('effect'))).toHaveLength(1);
	});
});
