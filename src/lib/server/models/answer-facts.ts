import type { AIMessage, BaseMessage } from '@langchain/core/messages';
import type { ModelUsage } from '../../protocol';
import type { ChatAnswer } from '../telemetry/telemetry';

/** Where each client puts the model that answered and why it stopped (Ollama's fields, then OpenAI's). */
const MODEL_KEYS = ['model', 'model_name'] as const;
const FINISH_KEYS = ['done_reason', 'finish_reason'] as const;

const textAt = (meta: Record<string, unknown>, keys: readonly string[]) =>
	keys.map((k) => meta[k]).find((v): v is string => typeof v === 'string' && v !== '');

/** Pure. What an answer says of its call, for the call's span and metrics: from the usage Sophos records and the client's metadata. */
export function answerFacts(answer: BaseMessage, usage: ModelUsage | undefined): ChatAnswer {
	const meta = (answer.response_metadata ?? {}) as Record<string, unknown>;
	const reasoning = (answer as Partial<Pick<AIMessage, 'usage_metadata'>>).usage_metadata?.output_token_details?.reasoning;
	const finish = textAt(meta, FINISH_KEYS);
	const model = textAt(meta, MODEL_KEYS);
	return {
		...(usage?.inputTokens !== undefined ? { inputTokens: usage.inputTokens } : {}),
		...(usage?.outputTokens !== undefined ? { outputTokens: usage.outputTokens } : {}),
		...(reasoning !== undefined ? { reasoningTokens: reasoning } : {}),
		...(usage?.firstTokenMs !== undefined ? { firstTokenMs: usage.firstTokenMs } : {}),
		...(usage?.durationMs !== undefined ? { durationMs: usage.durationMs } : {}),
		...(model ? { responseModel: model } : {}),
		finishReasons: finish ? [finish] : (answer as AIMessage).tool_calls?.length ? ['tool_calls'] : [],
		text: answer.text
	};
}
