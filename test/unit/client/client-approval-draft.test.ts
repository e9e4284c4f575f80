import { describe, expect, it } from 'vitest';
import { AllowedToolsList } from '../../../src/lib/client/allowed-tools';
import { MAX_REASON_CHARS, UNDECIDED_MESSAGE, decisionsFrom, emptyDraft, parseArgs, type ApprovalDraft } from '../../../src/lib/client/approval-draft';
import { httpChatApi } from '../../../src/lib/client/chat-api';
import { FakeApi, deferred, fail, ok, pending } from '../../support/client-fakes';

const A = pending('call-a', 'test__effect', { item: 'a' });
const B = pending('call-b', 'memory__delete_entities', { entityNames: ['x'] });
const draft = (patch: Partial<ApprovalDraft>, of = A): ApprovalDraft => ({ ...emptyDraft(of), ...patch });

describe('approval drafts', () => {
	it('starts with no choice and the arguments as indented JSON', () => {
		expect(emptyDraft(B)).toEqual({ choice: null, reason: '', argsText: '{\n  "entityNames": [\n    "x"\n  ]\n}' });
	});

	it('makes one decision per call, in the calls’ order', () => {
		expect(
			decisionsFrom([A, B], {
				'call-b': draft({ choice: 'deny', reason: '  keep x  ' }, B),
				'call-a': draft({ choice: 'always' })
			})
		).toEqual({
			ok: true,
			decisions: [
				{ toolCallId: 'call-a', action: 'approve', remember: true },
				{ toolCallId: 'call-b', action: 'deny', reason: 'keep x' }
			]
		});
		expect(decisionsFrom([A], { 'call-a': draft({ choice: 'approve' }) })).toEqual({ ok: true, decisions: [{ toolCallId: 'call-a', action: 'approve' }] });
		expect(decisionsFrom([A], { 'call-a': draft({ choice: 'deny', reason: '   ' }) })).toEqual({ ok: true, decisions: [{ toolCallId: 'call-a', action: 'deny' }] });
		expect(decisionsFrom([A], { 'call-a': draft({ choice: 'edit', argsText: '{"item": "c"}' }) })).toEqual({
			ok: true,
			decisions: [{ toolCallId: 'call-a', action: 'edit', args: { item: 'c' } }]
		});
	});

	it('names what is wrong with each call that is not ready, and sends nothing', () => {
		expect(decisionsFrom([A, B], { 'call-a': draft({ choice: 'edit', argsText: '{"item": ' }) })).toEqual({
			ok: false,
			problems: { 'call-a': expect.stringMatching(/^This is not valid JSON: /), 'call-b': UNDECIDED_MESSAGE }
		});
		expect(decisionsFrom([A], { 'call-a': draft({ choice: 'deny', reason: 'x'.repeat(MAX_REASON_CHARS + 1) }) })).toEqual({
			ok: false,
			problems: { 'call-a': `The reason must be at most ${MAX_REASON_CHARS} characters.` }
		});
	});

	it.each(['[1, 2]', 'null', '"text"', '42'])('refuses arguments that are not one JSON object: %s', (text) => {
		expect(parseArgs(text)).toEqual({ ok: false, message: 'The arguments must be one JSON object, such as {"item": "value"}.' });
	});
});

describe('AllowedToolsList', () => {
	const EFFECT = { tool: 'test__effect', since: '2026-11-01T10:00:00.000Z' };
	const DELETE = { tool: 'memory__delete_entities', since: '2026-11-01T11:00:00.000Z' };

	it('lists the tools on load and revokes one, which leaves the list', async () => {
		const api = new FakeApi();
		api.allowed = [EFFECT, DELETE];
		const list = new AllowedToolsList(api);
		await list.load();
		expect(list.snapshot).toEqual({ state: 'ready', tools: [EFFECT, DELETE], revoking: null, error: null });
		const revoking = list.revoke('test__effect');
		expect(list.snapshot.revoking).toBe('test__effect');
		await revoking;
		expect(api.calls.revokeAllowedTool).toEqual([['test__effect']]);
		expect(list.snapshot).toMatchObject({ tools: [DELETE], revoking: null, error: null });
	});

	it('drops a tool another tab revoked already (404), keeps it on any other refusal', async () => {
		const api = new FakeApi();
		api.allowed = [EFFECT, DELETE];
		const list = new AllowedToolsList(api);
		await list.load();
		api.allowed = [DELETE];
		await list.revoke('test__effect');
		expect(list.snapshot).toMatchObject({ tools: [DELETE], error: null });
		api.answers.revokeAllowedTool = () => fail(503, 'SHUTTING_DOWN', 'The service is shutting down');
		await list.revoke('memory__delete_entities');
		expect(list.snapshot).toMatchObject({ tools: [DELETE], error: { code: 'SHUTTING_DOWN' } });
	});

	it('lets a revoke win over a list read that was in flight, and revokes one tool at a time', async () => {
		const api = new FakeApi();
		api.allowed = [EFFECT, DELETE];
		const list = new AllowedToolsList(api);
		await list.load();
		const stale = deferred<ReturnType<typeof ok>>();
		api.answers.listAllowedTools = () => stale.promise as never;
		const reading = list.load();
		const revoking = list.revoke('test__effect');
		await list.revoke('memory__delete_entities');
		await revoking;
		stale.resolve(ok([EFFECT, DELETE]));
		await reading;
		expect(api.calls.revokeAllowedTool).toEqual([['test__effect']]);
		expect(list.snapshot.tools).toEqual([DELETE]);
	});

	it('says why the list could not be read', async () => {
		const api = new FakeApi();
		api.answers.listAllowedTools = () => fail(0, 'FETCH_ERROR', 'Failed to connect to the server.');
		const list = new AllowedToolsList(api);
		await list.load();
		expect(list.snapshot).toMatchObject({ state: 'error', error: { code: 'FETCH_ERROR' } });
	});
});

describe('httpChatApi and allowed tools', () => {
	it('parses the list, refuses a body it cannot read, and names the tool in the revoke path', async () => {
		const seen: string[] = [];
		let body: unknown = { allowed: [{ tool: 'test__effect', since: '2026-11-01T10:00:00.000Z' }] };
		const api = httpChatApi(async (url, init) => {
			seen.push(`${init?.method ?? 'GET'} ${url}`);
			return init?.method === 'DELETE' ? new Response(null, { status: 204 }) : Response.json(body);
		});
		expect(await api.listAllowedTools()).toEqual({ ok: true, value: [{ tool: 'test__effect', since: '2026-11-01T10:00:00.000Z' }] });
		body = { allowed: [{ tool: 3 }] };
		expect(await api.listAllowedTools()).toMatchObject({ ok: false, error: { code: 'BAD_RESPONSE' } });
		expect(await api.revokeAllowedTool('a b__c/d')).toEqual({ ok: true, value: null });
		expect(seen).toEqual(['GET /api/allowed-tools', 'GET /api/allowed-tools', 'DELETE /api/allowed-tools/a%20b__c%2Fd']);
	});
});
