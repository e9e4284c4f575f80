import { describe, expect, it } from 'vitest';
import type { PendingApproval } from '../../../src/lib/protocol';
import { planCall, type GateInput } from '../../../src/lib/server/approvals/approval-gate';
import { resolveApproval } from '../../../src/lib/server/mcp/approval-policy';
import { checkDecisions } from '../../../src/lib/server/approvals/decision-check';
import { unlessRefused } from '../../../src/lib/server/http/run-refusal-error';

describe('resolveApproval', () => {
	it.each([
		['writes asks before a write', undefined, false, 'writes', 'ask'],
		['writes runs a read', undefined, true, 'writes', 'auto'],
		['all asks before a read', undefined, true, 'all', 'ask'],
		['none runs a write', undefined, false, 'none', 'auto'],
		['a server-wide setting wins', 'deny', true, 'none', 'deny'],
		['a per-tool setting wins', { write: 'auto' }, false, 'all', 'auto'],
		['an unlisted tool follows the default', { other: 'auto' }, false, 'writes', 'ask']
	] as const)('%s', (_name, setting, readOnly, fallback, expected) => {
		expect(resolveApproval({ setting, tool: 'write', readOnly, fallback })).toBe(expected);
	});
});

describe('planCall', () => {
	const tool = { name: 'mail__send', approval: 'ask' as const, openWorld: false, readOnly: false, safeToRepeat: false };
	const fetchTool = { name: 'fetch__fetch', approval: 'auto' as const, openWorld: true, readOnly: true, safeToRepeat: true };
	const memoryWrite = { name: 'memory__create_entities', approval: 'auto' as const, openWorld: false, readOnly: false, safeToRepeat: false };
	const quiet = { privateFrom: [], untrustedFrom: [] };
	const both = { privateFrom: ['memory__read_graph'], untrustedFrom: ['fetch__fetch'] };
	const base: GateInput = {
		args: { to: 'a' },
		entry: undefined,
		decision: undefined,
		tool,
		allowed: false,
		unfinished: 'auto',
		composed: [],
		context: quiet,
		guard: true,
		untrustedWrites: 'auto'
	};
	it.each<[string, Partial<GateInput>, unknown]>([
		['asks before a tool whose policy is ask', {}, { kind: 'ask', reason: { kind: 'policy' } }],
		['runs a tool that is always allowed', { allowed: true }, { kind: 'call', args: { to: 'a' } }],
		['runs an auto tool', { tool: { ...tool, approval: 'auto' } }, { kind: 'call' }],
		['asks about a composed URL even when allowed', { allowed: true, tool: { ...tool, approval: 'auto', openWorld: true }, composed: ['https://x'] }, { kind: 'ask', reason: { kind: 'composed-url' } }],
		['runs an open-world call of a known URL', { tool: fetchTool }, { kind: 'call' }],
		['asks about every open-world call once the context holds private data and untrusted content', { tool: fetchTool, context: both }, { kind: 'ask', reason: { kind: 'composed-url', message: expect.stringMatching(/memory__read_graph.*fetch__fetch/) } }],
		['... even when the tool is always allowed', { tool: fetchTool, context: both, allowed: true }, { kind: 'ask', reason: { kind: 'composed-url' } }],
		['... but not with EXFILTRATION_GUARD off', { tool: fetchTool, context: both, guard: false }, { kind: 'call' }],
		['private data alone does not hold an open-world call back', { tool: fetchTool, context: { privateFrom: ['memory__read_graph'], untrustedFrom: [] } }, { kind: 'call' }],
		['untrusted content alone does not either', { tool: fetchTool, context: { privateFrom: [], untrustedFrom: ['fetch__fetch'] } }, { kind: 'call' }],
		['a closed-world tool is not held back by both', { tool: memoryWrite, context: both }, { kind: 'call' }],
		['UNTRUSTED_CONTENT_WRITES=auto: a write after untrusted content runs', { tool: memoryWrite, context: { privateFrom: [], untrustedFrom: ['fetch__fetch'] } }, { kind: 'call' }],
		['UNTRUSTED_CONTENT_WRITES=ask: a write after untrusted content asks', { tool: memoryWrite, context: { privateFrom: [], untrustedFrom: ['fetch__fetch'] }, untrustedWrites: 'ask' }, { kind: 'ask', reason: { kind: 'policy', message: expect.stringMatching(/fetch__fetch/) } }],
		['UNTRUSTED_CONTENT_WRITES=ask: a write with no untrusted content runs', { tool: memoryWrite, untrustedWrites: 'ask' }, { kind: 'call' }],
		['UNTRUSTED_CONTENT_WRITES=ask: a read after untrusted content runs', { tool: fetchTool, context: { privateFrom: [], untrustedFrom: ['fetch__fetch'] }, untrustedWrites: 'ask' }, { kind: 'call' }],
		['runs an approved call', { decision: { action: 'approve' } }, { kind: 'call', args: { to: 'a' } }],
		['runs an edited call with the person\'s arguments', { decision: { action: 'edit', args: { to: 'b' } } }, { kind: 'call', args: { to: 'b' } }],
		['runs nothing for a denied call', { decision: { action: 'deny', reason: 'no' } }, { kind: 'denied', reason: 'no' }],
		['reuses a recorded outcome, whatever was decided', { entry: { outcome: 'success', result: 'ok', attempts: 1 }, decision: { action: 'deny' } }, { kind: 'reuse', recorded: { outcome: 'success', result: 'ok' } }],
		['never asks twice about a call that was attempted', { entry: { outcome: null, result: null, attempts: 1 } }, { kind: 'report-uncertain' }],
		['under UNFINISHED_TOOL_CALLS=ask, asks about a call a crash left unknown', { entry: { outcome: null, result: null, attempts: 1 }, unfinished: 'ask' }, { kind: 'ask', reason: { kind: 'uncertain' } }],
		['approving an uncertain call runs it again', { entry: { outcome: null, result: null, attempts: 1 }, decision: { action: 'approve' } }, { kind: 'call' }],
		['denying an uncertain call tells the model it may have happened', { entry: { outcome: null, result: null, attempts: 1 }, decision: { action: 'deny', reason: 'check first' } }, { kind: 'report-uncertain', reason: 'check first' }]
	])('%s', (_name, input, expected) => {
		expect(planCall({ ...base, ...input })).toMatchObject(expected as object);
	});
});

describe('checkDecisions', () => {
	const pending = (id: string): PendingApproval => ({
		toolCallId: id,
		tool: 'mail__send',
		args: {},
		reason: { kind: 'policy', message: '' },
		requestedAt: '2026-01-01T00:00:00.000Z',
		expiresAt: '2026-01-02T00:00:00.000Z'
	});
	it('refuses when nothing waits, with its own code', () => {
		expect(() => unlessRefused(checkDecisions([], [{ toolCallId: 'a', action: 'approve' }]))).toThrow(expect.objectContaining({ code: 'NOT_WAITING' }));
	});
	it.each([
		['an unknown id', [{ toolCallId: 'x', action: 'approve' }], /No call waits/],
		['a call decided twice', [{ toolCallId: 'a', action: 'approve' }, { toolCallId: 'a', action: 'deny' }], /decided twice/],
		['a missing call', [{ toolCallId: 'a', action: 'approve' }], /missing: b/],
		['edit without args', [{ toolCallId: 'a', action: 'edit' }, { toolCallId: 'b', action: 'approve' }], /needs its new "args"/],
		['args without edit', [{ toolCallId: 'a', action: 'approve', args: {} }, { toolCallId: 'b', action: 'approve' }], /goes with "edit"/],
		['remember on a denial', [{ toolCallId: 'a', action: 'deny', remember: true }, { toolCallId: 'b', action: 'approve' }], /"remember"/]
	] as const)('refuses %s', (_name, decisions, message) => {
		expect(() => unlessRefused(checkDecisions([pending('a'), pending('b')], decisions as never))).toThrow(expect.objectContaining({ code: 'BAD_REQUEST', message: expect.stringMatching(message) }));
	});
	it('accepts every call decided once', () => {
		expect(
			checkDecisions([pending('a'), pending('b')], [
				{ toolCallId: 'b', action: 'edit', args: { to: 'c' }, remember: true },
				{ toolCallId: 'a', action: 'deny', reason: 'no' }
			])
		).toEqual([
			{ toolCallId: 'b', tool: 'mail__send', action: 'edit', args: { to: 'c' }, remember: true },
			{ toolCallId: 'a', tool: 'mail__send', action: 'deny', reason: 'no', remember: false }
		]);
	});
});
