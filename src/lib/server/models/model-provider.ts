import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { BaseMessage } from '@langchain/core/messages';
import type { RunFailure } from '../errors';
import type { ModelUsage, ProviderKind } from '../../protocol';

/**
 * One model server behind one interface. The quirks of its client live in its own module: how a
 * chat model is built on the shared paced fetch, how its models are listed, how its failures are
 * told apart, and where its answers carry their token counts and timings.
 */
export interface ModelProvider {
	readonly name: string;
	readonly kind: ProviderKind;
	/** The server's base URL, for a span's server.address and server.port. */
	readonly address: string;
	/** A fresh chat model for one call whose requests `signal` aborts, so aborting one run's request never touches another's. */
	chatModel(model: string, signal?: AbortSignal): BaseChatModel;
	/** The names of the models it serves now; throws a classified RunFailure when it cannot be asked. */
	listModels(): Promise<string[]>;
	/** Whether `model` is among the names `listModels` gave. */
	serves(listed: string[], model: string): boolean;
	/** The error for a model it does not serve, saying what to do. */
	notServed(model: string): RunFailure;
	/** A failed call as our error, from the client's error type and the HTTP status, never the wording. */
	classifyError(e: unknown, model: string): RunFailure;
	/** What the call that gave `answer` used, from the provider's own figures; undefined when it sent none. */
	usageOf(answer: BaseMessage): ModelUsage | undefined;
}
