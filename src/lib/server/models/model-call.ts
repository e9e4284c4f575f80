import type { BaseMessage } from '@langchain/core/messages';
import { z } from 'zod';
import { ModelUsageSchema } from '../../protocol';

/**
 * What the thread keeps with each answer about the call that gave it: the model (`<provider>/<model>`),
 * the run that made the call, and what it used. It lives in the answer's response metadata, so it is
 * written in the same checkpoint write as the answer: a step that committed has it once, a step that
 * a crash cut short has neither, and a resumed step that LangGraph replays from its saved writes does
 * not call the model again, so nothing is counted twice.
 */
export const ModelCallSchema = z.object({
	model: z.string(),
	run: z.string(),
	usage: ModelUsageSchema.optional()
});

export type ModelCall = z.infer<typeof ModelCallSchema>;

const KEY = 'sophos';

/** Records the call on the answer it just returned, before the step hands the answer to LangGraph. */
export function recordModelCall<M extends BaseMessage>(answer: M, call: ModelCall): M {
	answer.response_metadata = { ...answer.response_metadata, [KEY]: call };
	return answer;
}

/** The recorded call of an answer read back from a checkpoint (which is input too); undefined before this was kept. */
export function modelCallOf(message: BaseMessage): ModelCall | undefined {
	const parsed = ModelCallSchema.safeParse((message.response_metadata as Record<string, unknown> | undefined)?.[KEY]);
	return parsed.success ? parsed.data : undefined;
}

export function reasoningOf(message: BaseMessage): string {
	const value = message.additional_kwargs?.reasoning_content;
	return typeof value === 'string' ? value : '';
}
