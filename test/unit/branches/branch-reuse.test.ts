import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { reuseFromOtherBranch } from '../../../src/lib/server/tools/branch-reuse';
import { canonicalArgsHash } from '../../../src/lib/server/tools/canonical-args';
import type { JournalEntry } from '../../../src/lib/server/storage/journal-records';

const entry = (toolCallId: string, result: string, messageId: string | null = `ai-${toolCallId}`): JournalEntry => ({
	threadId: 't',
	toolCallId,
	runId: 'r',
	step: 2,
	tool: 'test__effect',
	argsHash: canonicalArgsHash({ item: 'a' }),
	callHash: canonicalArgsHash({ item: 'a' }),
	idempotencyKey: `t:${toolCallId}`,
	messageId,
	attempts: 1,
	outcome: 'success',
	result
});

/** A journal holding `rows` as the calls that succeeded with { item: 'a' }; `own` are known by id. */
function journal(rows: JournalEntry[], own: string[] = []) {
	const asked: string[] = [];
	return {
		asked,
		get: async (_thread: string, id: string) => (own.includes(id) ? entry(id, 'own') : undefined),
		succeededWith: async (_thread: string, tool: string, hash: string) => {
			asked.push(tool);
			return hash === canonicalArgsHash({ item: 'a' }) ? rows : [];
		}
	};
}

/** As the tools step calls it: with the call's own entry read from the journal first. */
const reuse = async (
	c: { id: string; name: string; args: unknown },
	history: Parameters<typeof reuseFromOtherBranch>[1],
	tool: Parameters<typeof reuseFromOtherBranch>[2],
	threadId: string,
	j: ReturnType<typeof journal>
) => reuseFromOtherBranch(c, history, tool, threadId, await j.get(threadId, c.id), j);

const call = (id: string, args: Record<string, unknown> = { item: 'a' }) => ({ id, name: 'test__effect', args });
const write = { repeatsInNewBranch: false };
const ask = (id: string) => new AIMessage({ content: '', tool_calls: [{ id, name: 'test__effect', args: { item: 'a' } }] });

describe('reuseFromOtherBranch', () => {
	it('takes the oldest result another branch recorded, and says where it came from', async () => {
		const j = journal([entry('c1', 'saved a'), entry('c2', 'saved a again')]);
		expect(await reuse(call('c9'), [new HumanMessage('go')], write, 't', j)).toEqual({
			text: 'saved a',
			from: { toolCallId: 'c1', messageId: 'ai-c1' }
		});
	});

	it('leaves out the branch\'s own calls and those it already took over, then gives up', async () => {
		const taken = new ToolMessage({ content: 'saved a', tool_call_id: 'c5', additional_kwargs: { reused_from: { toolCallId: 'c2' } } });
		const history = [new HumanMessage('go'), ask('c1'), new ToolMessage({ content: 'saved a', tool_call_id: 'c1' }), ask('c5'), taken];
		expect(await reuse(call('c9'), history, write, 't', journal([entry('c1', 'x'), entry('c2', 'y')]))).toBeUndefined();
		expect(await reuse(call('c9'), history, write, 't', journal([entry('c1', 'x'), entry('c3', 'z', null)]))).toEqual({
			text: 'z',
			from: { toolCallId: 'c3' }
		});
	});

	it('makes the call when the arguments differ, the tool repeats in a new branch, it is unknown, or the journal knows the call', async () => {
		const j = journal([entry('c1', 'saved a')], ['c9']);
		expect(await reuse(call('c8', { item: 'b' }), [], write, 't', j)).toBeUndefined();
		expect(await reuse(call('c9'), [], write, 't', j)).toBeUndefined();
		const read = journal([entry('c1', 'saved a')]);
		expect(await reuse(call('c8'), [], { repeatsInNewBranch: true }, 't', read)).toBeUndefined();
		expect(await reuse(call('c8'), [], undefined, 't', read)).toBeUndefined();
		expect(read.asked).toEqual([]);
	});
});
