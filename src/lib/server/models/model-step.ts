import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';

/** What an agent step needs of the model the run's conversation chose. */
export type ModelStep = {
	/** The model's name as its server knows it, for the step's trace. */
	name: string;
	/** A fresh client per call, whose requests the step's signal aborts, so aborting one run's request never touches another's. */
	chat: BaseChatModel;
	/** The messages the call is about to send, for its span (taken only when message content is captured). */
	sending: (messages: readonly BaseMessage[]) => void;
	/** Turns a failed call into a typed error while its type is still known. */
	classifyError: (e: unknown) => Error;
	/** The answer as the thread keeps it: with the model that gave it, its run, and what the call used. */
	record: (answer: BaseMessage) => BaseMessage;
};
