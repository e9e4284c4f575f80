/**
 * Pure. The composer's model picker: which models it offers, and what a message sends. The
 * conversation keeps its model on the server; the picker shows it, and a message carries `model`
 * only when the reader chose another one, so the server checks a choice only when there is one.
 */
import type { ConversationSummary, ModelList } from '../protocol';

export type ModelOption = { id: string; label: string; available: boolean };

/** The model a conversation answers with (a new one: the default). */
export function currentModel(conversation: ConversationSummary | null, list: ModelList | null): string | null {
	return conversation?.model ?? list?.default ?? null;
}

/** Every listed model; the chosen one too when its provider did not answer, marked as such. */
export function modelOptions(list: ModelList | null, chosen: string | null): ModelOption[] {
	const options = (list?.models ?? []).map((m) => ({ id: m.id, label: m.id, available: true }));
	if (chosen && !options.some((o) => o.id === chosen)) options.unshift({ id: chosen, label: `${chosen} (not available now)`, available: false });
	return options;
}

/** What a message sends as `model`: the choice, when it differs from what the conversation uses. */
export function modelToSend(chosen: string | null, conversation: ConversationSummary | null, list: ModelList | null): string | undefined {
	return chosen && chosen !== currentModel(conversation, list) ? chosen : undefined;
}
