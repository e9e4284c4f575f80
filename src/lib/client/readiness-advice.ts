/**
 * Pure. Turns /api/readyz into what a person should do about each part that is down.
 * The server's message names the address or model and the command (e.g. "Ollama is not reachable
 * at http://127.0.0.1:11434: start it with `ollama serve`"); the advice adds the general fix, so
 * nothing here depends on the message's wording.
 */
import type { Readiness } from '../protocol';

export type Advice = { key: string; title: string; detail: string; fix: string };

export function readinessAdvice(readiness: Readiness | null): Advice[] {
	if (!readiness || readiness.status === 'ok' || !readiness.checks) return [];
	const advice: Advice[] = [];
	const { database, model, mcp } = readiness.checks;
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
			fix: 'Start Ollama (`ollama serve`) at the address in OLLAMA_HOST and pull the model named in OLLAMA_MODEL (`ollama pull qwen3` for the default), then select Check again.'
		});
	}
	for (const [name, check] of Object.entries(mcp ?? {})) {
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
