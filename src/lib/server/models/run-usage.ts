import type { BaseMessage } from '@langchain/core/messages';
import { modelCallOf } from './model-call';

/** Pure. What a run's model calls used in all, summed over the answers of the thread it made. */
export type RunUsage = { calls: number; inputTokens: number; outputTokens: number; durationMs: number };

export const NO_USAGE: RunUsage = { calls: 0, inputTokens: 0, outputTokens: 0, durationMs: 0 };

/** Each answer counts once, for the run that made its call (a resumed step's answer stays its first run's). */
export function usageByRun(messages: readonly BaseMessage[]): Map<string, RunUsage> {
	const totals = new Map<string, RunUsage>();
	for (const message of messages) {
		const call = modelCallOf(message);
		if (!call) continue;
		const sum = totals.get(call.run) ?? NO_USAGE;
		totals.set(call.run, {
			calls: sum.calls + 1,
			inputTokens: sum.inputTokens + (call.usage?.inputTokens ?? 0),
			outputTokens: sum.outputTokens + (call.usage?.outputTokens ?? 0),
			durationMs: sum.durationMs + (call.usage?.durationMs ?? 0)
		});
	}
	return totals;
}
