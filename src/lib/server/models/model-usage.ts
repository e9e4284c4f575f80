import type { ModelUsage } from '../../protocol';

/** Pure. Output tokens per second of generation, when both figures are there and the time is not zero. */
export function tokensPerSecond(outputTokens: number | undefined, generationMs: number | undefined): number | undefined {
	if (outputTokens === undefined || generationMs === undefined || generationMs <= 0) return undefined;
	return Math.round((outputTokens / (generationMs / 1000)) * 10) / 10;
}

/** Drops the figures that are undefined, so a stored record holds only what the provider gave. */
export function definedUsage(usage: ModelUsage): ModelUsage | undefined {
	const entries = Object.entries(usage).filter(([, v]) => v !== undefined);
	return entries.length ? (Object.fromEntries(entries) as ModelUsage) : undefined;
}
