import { z } from 'zod';

/**
 * What one model call used. Every figure is optional: a server that sends no usage chunk still
 * has its timings, and one that sends counts but no timings still has its counts.
 */
export const ModelUsageSchema = z.object({
	inputTokens: z.number().int().nonnegative().optional(),
	outputTokens: z.number().int().nonnegative().optional(),
	/** From the request to the first token of reasoning, text or a tool call. */
	firstTokenMs: z.number().nonnegative().optional(),
	durationMs: z.number().nonnegative().optional(),
	/** Output tokens over the time spent generating them. */
	tokensPerSecond: z.number().nonnegative().optional()
});

export type ModelUsage = z.infer<typeof ModelUsageSchema>;

/** Output tokens per second of generation, when both figures are there and the time is not zero. */
export function tokensPerSecond(outputTokens: number | undefined, generationMs: number | undefined): number | undefined {
	if (outputTokens === undefined || generationMs === undefined || generationMs <= 0) return undefined;
	return Math.round((outputTokens / (generationMs / 1000)) * 10) / 10;
}

/** Drops the figures that are undefined, so a stored record holds only what the provider gave. */
export function definedUsage(usage: ModelUsage): ModelUsage | undefined {
	const entries = Object.entries(usage).filter(([, v]) => v !== undefined);
	return entries.length ? (Object.fromEntries(entries) as ModelUsage) : undefined;
}
