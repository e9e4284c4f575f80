import type { RunnableConfig } from '@langchain/core/runnables';
import type { ConversationStorage } from '../storage/conversation-storage';
import type { ModelCatalog } from './model-catalog';
import type { ModelStep } from './model-step';

/**
 * The key of `configurable` under which a run hands its steps the conversation's model (null:
 * DEFAULT_MODEL), read once as the run begins rather than at every model call (issue 26).
 */
export const CONVERSATION_MODEL = 'conversation_model';

/**
 * The model of each graph step: the one its run named under CONVERSATION_MODEL (a model chosen
 * since applies from the next run on) or, for a step no run named one for, the one its
 * conversation (its thread) answers with now; DEFAULT_MODEL when none was chosen.
 */
export function conversationModel(
	models: Pick<ModelCatalog, 'conversationStep'>,
	conversations: Pick<ConversationStorage, 'model'>
): (config: RunnableConfig) => Promise<ModelStep> {
	return async (config) => {
		const named: unknown = config.configurable?.[CONVERSATION_MODEL];
		const model = typeof named === 'string' || named === null ? named : await conversations.model(String(config.configurable?.thread_id));
		return models.conversationStep(model, String(config.configurable?.run_id), config.signal);
	};
}
