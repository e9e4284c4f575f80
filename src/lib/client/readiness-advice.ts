/**
 * Pure. Turns /api/readyz into what a person should do about each part that is down.
 * The server's message names the address or model and the command (e.g. "Ollama is not reachable
 * at http://127.0.0.1:11434: start it with `ollama serve`"); the advice adds the general fix, so
 * nothing here depends on the message's wording.
 */
import type { ProviderKind, Readiness } from '../protocol';

/** `link`: a page of Sophos that does the fix (a remote server's sign-in), opened in this tab. */
export type Advice = { key: string; title: string; detail: string; fix: string; link?: { href: string; label: string } };

/** What brings a provider's server up, by the kind of server it is. */
const PROVIDER_FIX: Record<ProviderKind, string> = {
	ollama:
		'Start Ollama (`ollama serve`) at the address in OLLAMA_HOST and pull the model named in OLLAMA_MODEL (`ollama pull qwen3` for the default), then select Check again.',
	openai:
		"Start the OpenAI-compatible server at its address (OPENAI_BASE_URL, or baseUrl in models.json, ending in /v1) with the model loaded: LM Studio's local server; llama.cpp's `llama-server -m model.gguf --jinja` (tool calls need `--jinja`); vLLM's `vllm serve <model> --enable-auto-tool-choice --tool-call-parser <parser>`. Then select Check again."
};

function kindOf(readiness: Readiness, provider: string | undefined): ProviderKind {
	return (provider && readiness.checks.providers?.[provider]?.kind) || 'ollama';
}

export function readinessAdvice(readiness: Readiness | null): Advice[] {
	if (!readiness || readiness.status === 'ok' || !readiness.checks) return [];
	const advice: Advice[] = [];
	const { database, model, providers, mcp } = readiness.checks;
	const defaultProvider = readiness.defaultModel?.split('/', 1)[0];
	if (database?.status === 'error') {
		advice.push({
			key: 'database',
			title: 'The database is not available',
			detail: database.message ?? '',
			fix: 'Check that DATABASE_PATH points to a writable file, then restart Sophos.'
		});
	}
	if (model?.status === 'error') {
		advice.push({
			key: 'model',
			title: 'The model is not available, so messages cannot be answered',
			detail: model.message ?? '',
			fix: PROVIDER_FIX[kindOf(readiness, defaultProvider)]
		});
	}
	for (const [name, check] of Object.entries(providers ?? {})) {
		// The default's provider is the model check above; saying it twice helps no one.
		if (check.status !== 'error' || name === defaultProvider) continue;
		advice.push({
			key: `provider:${name}`,
			title: `Model server "${name}" is down: conversations that use its models cannot be answered`,
			detail: check.message ?? '',
			fix: PROVIDER_FIX[check.kind]
		});
	}
	for (const [name, check] of Object.entries(mcp ?? {})) {
		if (check.status === 'sign-in' && check.signIn) {
			advice.push({
				key: `mcp:${name}`,
				title: `Tool server "${name}" needs sign-in: runs go on without its tools`,
				detail: '',
				fix: 'Sign in with its account; Sophos keeps the sign-in until you sign out.',
				link: { href: check.signIn, label: `Sign in to ${name}` }
			});
			continue;
		}
		if (check.status !== 'error') continue;
		advice.push({
			key: `mcp:${name}`,
			title: `Tool server "${name}" is down: runs go on without its tools`,
			detail: check.message ?? '',
			fix: `Check its entry in config/mcp.json and the service log; restarting Sophos starts it again.`
		});
	}
	return advice;
}

/** Splits `text` at backticks so commands can be shown as code, still as text. */
export function codeSpans(text: string): { code: boolean; text: string }[] {
	return text
		.split('`')
		.map((part, i) => ({ code: i % 2 === 1, text: part }))
		.filter((part) => part.text !== '');
}
