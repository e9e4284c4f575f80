/**
 * Pure. The quiet lines that say what model calls used: under each answer (model · tokens ·
 * tok/s · time to first token) and under a run's timeline (its totals). Only what the provider
 * gave is shown; an answer from before usage was kept shows its model alone, or nothing.
 */
import type { ModelUsage, RunUsage } from '../protocol';

const count = (n: number) => n.toLocaleString('en-US');

export function formatDuration(ms: number): string {
	if (ms < 10) return `${ms.toFixed(1)} ms`;
	return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function tokens(usage: ModelUsage): string | null {
	const { inputTokens: input, outputTokens: output } = usage;
	if (input === undefined && output === undefined) return null;
	if (input === undefined) return `${count(output!)} tokens out`;
	if (output === undefined) return `${count(input)} tokens in`;
	return `${count(input)} → ${count(output)} tokens`;
}

export function usageLine(model: string | undefined, usage: ModelUsage | undefined): string {
	const parts = [
		model,
		usage && tokens(usage),
		usage?.tokensPerSecond !== undefined ? `${usage.tokensPerSecond < 100 ? usage.tokensPerSecond.toFixed(1) : Math.round(usage.tokensPerSecond)} tok/s` : null,
		usage?.firstTokenMs !== undefined ? `first token ${formatDuration(usage.firstTokenMs)}` : null
	];
	return parts.filter(Boolean).join(' · ');
}

export function runUsageLine(usage: RunUsage): string {
	if (usage.calls === 0) return 'No model calls recorded';
	const calls = usage.calls === 1 ? '1 model call' : `${usage.calls} model calls`;
	return [calls, `${count(usage.inputTokens)} → ${count(usage.outputTokens)} tokens`, formatDuration(usage.durationMs)].join(' · ');
}
