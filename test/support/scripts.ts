import type { Script, ScriptedReply, ScriptRequest } from './model-script';

/** Scripts for the scripted model: each decides a reply from the conversation alone. */

export const WALKTHROUGH_PROMPT =
	'Fetch {url} and summarize it in one sentence. Then save that sentence to your knowledge graph as an observation on an entity named "example.com" (entityType: website).';

export const SUMMARY = 'Example Domain is a page reserved for use in documentation examples.';

/** Messages after the last user message: the current turn. */
export function currentTurn(request: ScriptRequest) {
	const lastUser = request.messages.map((m) => m.role).lastIndexOf('user');
	return { user: request.messages[lastUser]?.content ?? '', after: request.messages.slice(lastUser + 1) };
}

function offers(request: ScriptRequest, name: string): boolean {
	return request.tools?.some((t) => t.function.name === name) ?? false;
}

/**
 * The walkthrough's run: a fetch (or, with `fetch: false`, a memory read of the same shape),
 * then memory add_observations (which fails: no such entity), then create_entities, then the answer.
 * `answer` lets a test stream the final answer slowly or hold it.
 */
export function walkthroughScript(options: {
	url: string;
	/** false: start with a memory read of the same shape instead of fetching (no page server needed). */
	fetch?: boolean;
	/** Extra fields for the reply after the first tool result (step 3), e.g. a hold to crash in. */
	second?: Partial<ScriptedReply>;
	answer?: Partial<ScriptedReply>;
}): Script {
	return (request) => {
		const { after } = currentTurn(request);
		const toolResults = after.filter((m) => m.role === 'tool').length;
		switch (toolResults) {
			case 0:
				return options.fetch !== false && offers(request, 'fetch__fetch')
					? { thinking: 'I should fetch the page first.', toolCalls: [{ name: 'fetch__fetch', arguments: { url: options.url } }] }
					: { thinking: 'I should look at what I know first.', toolCalls: [{ name: 'memory__read_graph', arguments: {} }] };
			case 1:
				return {
					content: 'Now I will save that summary to the knowledge graph.',
					...options.second,
					toolCalls: [
						{ name: 'memory__add_observations', arguments: { observations: [{ entityName: 'example.com', contents: [SUMMARY] }] } }
					]
				};
			case 2:
				return {
					toolCalls: [
						{
							name: 'memory__create_entities',
							arguments: { entities: [{ name: 'example.com', entityType: 'website', observations: [SUMMARY] }] }
						}
					]
				};
			default:
				return { content: `${SUMMARY} I saved it to the knowledge graph on the entity "example.com".`, ...options.answer };
		}
	};
}

/** Answers every message with a fixed text; no tools. */
export function answerScript(content: string, extra: Partial<ScriptedReply> = {}): Script {
	return () => ({ content, ...extra });
}

/** Calls the given tools one per step (each step may be several calls), then answers. */
export function callsScript(
	steps: ({ name: string; arguments: Record<string, unknown> } | { name: string; arguments: Record<string, unknown> }[])[],
	answer: Partial<ScriptedReply> = {}
): Script {
	return (request) => {
		const { after } = currentTurn(request);
		const done = after.filter((m) => m.role === 'assistant').length;
		const step = steps[done];
		return step ? { toolCalls: Array.isArray(step) ? step : [step] } : { content: 'Finished.', ...answer };
	};
}
