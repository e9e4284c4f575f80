import type { BaseMessage } from '@langchain/core/messages';
import { RunFailure } from '../errors';
import { recordModelCall } from './model-call';
import { modelId, parseModelId } from '../../protocol/model-id';
import type { ModelList, ProviderCheck, ProviderKind } from '../../protocol';
import type { ModelProvider } from './model-provider';
import { genAiMessages } from './gen-ai-messages';
import type { ModelStep } from './model-step';
import { redactor } from '../secrets/redactor';
import { answerFacts } from './answer-facts';
import type { Telemetry } from '../telemetry/telemetry';

export type ModelCheck = { status: 'ok' | 'error'; message?: string };

/** What choosing a model reads of a run request (runs/run-service.ts StartRequest). */
type ModelChoice = { kind: string; conversation?: string | null; model?: string };

/** A chosen model this service cannot run: no such provider, or one that does not list the model (`serves`: names quoted). */
export type ModelRefusal =
	| { refused: 'unknown-provider'; model: string; provider: string; configured: string }
	| { refused: 'model-not-served'; model: string; provider: string; serves: string };

type Listing = { provider: ModelProvider; names: string[] } | { provider: ModelProvider; error: RunFailure };

/**
 * A provider's failure as it may leave the service. Model servers quote what they were sent (an
 * echoed Authorization header, a URL with its credentials) and the provider quotes the server, so
 * every failure is redacted here, where it is still one: before it becomes the run's error, an SSE
 * event, LangGraph's error write in the checkpoint, readiness or GET /api/models.
 */
function redacted(failure: RunFailure): RunFailure {
	const message = redactor.redact(failure.message);
	return message === failure.message ? failure : new RunFailure(failure.code, message, { cause: failure.cause });
}

/** How many names a refusal quotes: enough to spot a typo, short enough to read. */
const NAMES_QUOTED = 10;

/** Every configured provider by name, and the default model: where a model id becomes a chat model. */
export class ModelCatalog {
	private readonly providers: Map<string, ModelProvider>;

	/** Throws, naming DEFAULT_MODEL, when the default names no configured provider. */
	constructor(
		providers: readonly ModelProvider[],
		readonly defaultModel: string,
		private readonly telemetry?: Telemetry
	) {
		this.providers = new Map(providers.map((p) => [p.name, p]));
		const ref = parseModelId(defaultModel);
		if (!ref) throw new Error(`DEFAULT_MODEL="${defaultModel}": expected <provider>/<model>, e.g. ollama/qwen3`);
		if (!this.providers.has(ref.provider)) {
			throw new Error(`DEFAULT_MODEL="${defaultModel}": no provider "${ref.provider}" is configured (configured: ${this.names()})`);
		}
	}

	/** The provider and model name of an id; a stored id whose provider has since left the config is MODEL_UNAVAILABLE. */
	resolve(id: string): { provider: ModelProvider; model: string } {
		const ref = parseModelId(id);
		const provider = ref && this.providers.get(ref.provider);
		if (!ref || !provider) {
			throw new RunFailure('MODEL_UNAVAILABLE', `The model "${id}" names no configured provider (configured: ${this.names()}); choose another model.`);
		}
		return { provider, model: ref.model };
	}

	/** One step of `run` with the model its conversation chose, or the default when it chose none (`null`). */
	conversationStep(chosen: string | null, run: string, signal?: AbortSignal): ModelStep {
		return this.step(chosen ?? this.defaultModel, run, signal);
	}

	/**
	 * The model `id` for one step of `run`: a chat model whose requests `signal` aborts, its error
	 * classifier, and the answer's record. The step is made just before its one call, which it
	 * reports to telemetry as it ends: answered when recorded, failed when its error is classified.
	 */
	step(id: string, run: string, signal?: AbortSignal): ModelStep {
		const { provider, model } = this.resolve(id);
		const call = this.telemetry?.chat(run, { provider: provider.name, providerKind: provider.kind, model, address: provider.address });
		return {
			name: model,
			chat: provider.chatModel(model, signal),
			sending: (messages) => call?.sending(() => genAiMessages(messages)),
			classifyError: (e) => {
				const error = redacted(provider.classifyError(e, model));
				call?.failed(signal?.aborted ? 'cancelled' : error.code);
				return error;
			},
			record: (answer: BaseMessage) => {
				const usage = provider.usageOf(answer);
				call?.answered(answerFacts(answer, usage));
				return recordModelCall(answer, { model: id, run, ...(usage ? { usage } : {}) });
			}
		};
	}

	async list(): Promise<ModelList> {
		const listings = await this.listAll();
		return {
			default: this.defaultModel,
			models: listings.flatMap((l) =>
				'names' in l ? l.names.map((name) => ({ id: modelId({ provider: l.provider.name, model: name }), provider: l.provider.name, name })) : []
			),
			providers: listings.map((l) => ({
				name: l.provider.name,
				kind: l.provider.kind,
				...('error' in l ? { status: 'error' as const, message: l.error.message } : { status: 'ok' as const })
			}))
		};
	}

	/**
	 * Checks the model a start request chose (see checkChoice); a new conversation that chose none
	 * gets the default, and keeps it even if DEFAULT_MODEL changes later.
	 */
	async choose<R extends ModelChoice>(request: R): Promise<R | ModelRefusal> {
		if (request.kind === 'decide') return request;
		if (request.model !== undefined) return (await this.checkChoice(request.model)) ?? request;
		return request.kind === 'message' && request.conversation === null ? { ...request, model: this.defaultModel } : request;
	}

	/**
	 * A model a request chose: refused, naming the choice, unless its provider is configured and
	 * lists it. A provider that cannot be asked now gets the benefit of the doubt: the run then
	 * fails with MODEL_UNREACHABLE, which says what to do, and can be resumed.
	 */
	async checkChoice(id: string): Promise<ModelRefusal | null> {
		const ref = parseModelId(id);
		const provider = ref && this.providers.get(ref.provider);
		if (!ref || !provider) return { refused: 'unknown-provider', model: id, provider: ref?.provider ?? id, configured: this.names() };
		const listing = await this.listOne(provider);
		if ('error' in listing || provider.serves(listing.names, ref.model)) return null;
		const names = listing.names.slice(0, NAMES_QUOTED).join(', ') + (listing.names.length > NAMES_QUOTED ? ', …' : '');
		return { refused: 'model-not-served', model: id, provider: provider.name, serves: names || 'no models' };
	}

	/** The default model's check (is its provider up, does it serve the model) and each provider's. */
	async readiness(): Promise<{ model: ModelCheck; providers: Record<string, ProviderCheck> }> {
		const listings = await this.listAll();
		const { provider, model } = this.resolve(this.defaultModel);
		const own = listings.find((l) => l.provider === provider)!;
		const check: ModelCheck =
			'error' in own
				? { status: 'error', message: own.error.message }
				: provider.serves(own.names, model)
					? { status: 'ok' }
					: { status: 'error', message: redacted(provider.notServed(model)).message };
		return {
			model: check,
			providers: Object.fromEntries(
				listings.map((l) => [
					l.provider.name,
					{ kind: l.provider.kind, ...('error' in l ? { status: 'error' as const, message: l.error.message } : { status: 'ok' as const }) }
				])
			)
		};
	}

	/** The provider of the default model, whose failure the model check already names. */
	get defaultProvider(): string {
		return parseModelId(this.defaultModel)!.provider;
	}

	private listAll(): Promise<Listing[]> {
		return Promise.all([...this.providers.values()].map((p) => this.listOne(p)));
	}

	private async listOne(provider: ModelProvider): Promise<Listing> {
		try {
			return { provider, names: await provider.listModels() };
		} catch (e) {
			return { provider, error: redacted(provider.classifyError(e, '')) };
		}
	}

	private names(): string {
		return [...this.providers.keys()].join(', ');
	}
}
