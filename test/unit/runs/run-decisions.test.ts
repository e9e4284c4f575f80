import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { decideToolCall } from '../../../src/lib/server/tools/repeat-policy';
import { shouldAutoResume } from '../../../src/lib/server/runs/auto-resume';
import { carriedFirstEventId } from '../../../src/lib/server/runs/carried-stream';
import { danglingToolCalls } from '../../../src/lib/server/runs/dangling-tool-calls';
import { parseCrashAt } from '../../../src/lib/server/crash-points';

describe('decideToolCall', () => {
	const intentOnly = { outcome: null, result: null };
	it('calls a tool it has no record of', () => expect(decideToolCall(undefined, false, 'auto')).toEqual({ action: 'call' }));
	it('reuses a recorded outcome whatever the policy', () => {
		for (const policy of ['auto', 'repeat', 'report'] as const) {
			expect(decideToolCall({ outcome: 'success', result: 'ok' }, true, policy)).toEqual({
				action: 'reuse',
				recorded: { outcome: 'success', result: 'ok' }
			});
		}
	});
	it('repeats an unfinished call only when safe, by policy', () => {
		expect(decideToolCall(intentOnly, true, 'auto')).toEqual({ action: 'call' });
		expect(decideToolCall(intentOnly, false, 'auto')).toEqual({ action: 'report-uncertain' });
		expect(decideToolCall(intentOnly, false, 'repeat')).toEqual({ action: 'call' });
		expect(decideToolCall(intentOnly, true, 'report')).toEqual({ action: 'report-uncertain' });
	});
});

describe('shouldAutoResume', () => {
	const base = { pending: ['agent'], openCalls: [], recentTriggers: ['message' as const], max: 3 };
	it('resumes a pending model step', () => expect(shouldAutoResume(base)).toBe(true));
	it('does not resume a finished thread', () => expect(shouldAutoResume({ ...base, pending: [] })).toBe(false));
	it('resumes a tools step only if every open call is recorded or safe', () => {
		const tools = { ...base, pending: ['tools'] };
		expect(shouldAutoResume({ ...tools, openCalls: [{ recorded: true, safeToRepeat: false }, { recorded: false, safeToRepeat: true }] })).toBe(true);
		expect(shouldAutoResume({ ...tools, openCalls: [{ recorded: false, safeToRepeat: false }] })).toBe(false);
	});
	it('stops after AUTO_RESUME_MAX auto-resumes in a row', () => {
		expect(shouldAutoResume({ ...base, recentTriggers: ['auto-resume', 'auto-resume', 'message'] })).toBe(true);
		expect(shouldAutoResume({ ...base, recentTriggers: ['auto-resume', 'auto-resume', 'auto-resume', 'message'] })).toBe(false);
		expect(shouldAutoResume({ ...base, recentTriggers: ['auto-resume', 'resume', 'auto-resume', 'auto-resume'] })).toBe(true);
	});
});

describe('danglingToolCalls', () => {
	const ai = new AIMessage({
		content: '',
		tool_calls: [
			{ id: 'a', name: 'x', args: {} },
			{ id: 'b', name: 'y', args: {} }
		]
	});
	it('lists the calls of the last assistant message that have no result', () => {
		expect(danglingToolCalls([new HumanMessage('hi'), ai])).toEqual([
			{ id: 'a', name: 'x' },
			{ id: 'b', name: 'y' }
		]);
		expect(danglingToolCalls([new HumanMessage('hi'), ai, new ToolMessage({ content: 'r', tool_call_id: 'a' })])).toEqual([{ id: 'b', name: 'y' }]);
		expect(danglingToolCalls([new HumanMessage('hi'), new AIMessage('done')])).toEqual([]);
		expect(danglingToolCalls([])).toEqual([]);
	});
});

describe('parseCrashAt', () => {
	it('reads <point>[:<n>] and refuses anything else', () => {
		expect(parseCrashAt('before-tool-call')).toEqual({ point: 'before-tool-call', n: 1 });
		expect(parseCrashAt('before-checkpoint:4')).toEqual({ point: 'before-checkpoint', n: 4 });
		expect(parseCrashAt('nowhere')).toBeNull();
		expect(parseCrashAt('before-checkpoint:0')).toBeNull();
		expect(parseCrashAt('before-checkpoint:x')).toBeNull();
	});
});

describe('carriedFirstEventId', () => {
	const run = (id: string, trigger: 'message' | 'resume' | 'auto-resume') => ({ id, trigger });
	it('starts a resume of a run that began its stream a span above its ids', () => {
		expect(carriedFirstEventId([run('a', 'message')], 'a')).toBe(2 ** 32 + 1);
		expect(carriedFirstEventId([run('b', 'resume'), run('a', 'auto-resume')], 'b')).toBe(2 ** 32 + 1);
	});
	it('goes a span higher for each auto-resume in a row up to the run it carries on, counted from that run', () => {
		const runs = [run('new', 'auto-resume'), run('c', 'auto-resume'), run('b', 'auto-resume'), run('a', 'message')];
		expect(carriedFirstEventId(runs, 'c')).toBe(3 * 2 ** 32 + 1);
		expect(carriedFirstEventId(runs, 'a')).toBe(2 ** 32 + 1);
	});
	it('refuses a run that is not among the runs', () => {
		expect(() => carriedFirstEventId([run('a', 'message')], 'b')).toThrow(/run b is not among/);
	});
});
