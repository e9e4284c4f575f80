import type { RunnableConfig } from '@langchain/core/runnables';
import type { ConversationStorage } from '../storage/conversation-storage';
import type { ModelCatalog } from './model-catalog';
import type { ModelStep } from './model-step';

/**
 * The model of each graph step: the one the step's conversation (its thread) answers with, read at
 * every step so a model chosen since applies from the next one on; DEFAULT_MODEL when none was chosen.
 */
export function conversationModel(
	models: Pick<ModelCatalog, 'conversationStep'>,
	conversations: Pick<ConversationStorage, 'model'>
): (config: RunnableConfig) => Promise<ModelStep> {
	return async (config) =>
		models.conversationStep(await conversations.model(String(config.configurable?.thread_id)), String(config.configurable?.run_id), config.signal);
}
