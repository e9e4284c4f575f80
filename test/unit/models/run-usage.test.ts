import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { describe, expect, it } from 'vitest';
import { toMessageDto } from '../../../src/lib/server/agent/messages';
import { modelCallOf, recordModelCall } from '../../../src/lib/server/models/model-call';
import { usageByRun } from '../../../src/lib/server/models/run-usage';

const answer = (run: string, usage?: Record<string, number>) =>
	recordModelCall(new AIMessage('a'), { model: 'openai/qwen3-8b', run, ...(usage ? { usage } : {}) });

describe('usage per run', () => {
	it('sums each answer once, for the run whose call gave it', () => {
		const totals = usageByRun([
			new HumanMessage('q'),
			answer('r1', { inputTokens: 10, outputTokens: 5, durationMs: 100 }),
			answer('r2', { inputTokens: 20, outputTokens: 7, durationMs: 50.5 }),
			answer('r1', { inputTokens: 30, outputTokens: 1 }),
			answer('r2'),
			new AIMessage('an answer from before models were recorded')
		]);
		expect(Object.fromEntries(totals)).toEqual({
			r1: { calls: 2, inputTokens: 40, outputTokens: 6, durationMs: 100 },
			r2: { calls: 2, inputTokens: 20, outputTokens: 7, durationMs: 50.5 }
		});
	});

	it('reads back what a checkpoint holds as input: a malformed record is no record', () => {
		const odd = new AIMessage({ content: 'x', response_metadata: { sophos: { model: 3, run: 'r1' } } });
		expect(modelCallOf(odd)).toBeUndefined();
		expect(usageByRun([odd]).size).toBe(0);
		expect(toMessageDto(odd)).toEqual({ id: '', role: 'assistant', content: 'x' });
	});

	it("puts the model and usage on the assistant message's DTO", () => {
		expect(toMessageDto(answer('r1', { outputTokens: 3 }))).toMatchObject({ role: 'assistant', model: 'openai/qwen3-8b', usage: { outputTokens: 3 } });
	});
});
