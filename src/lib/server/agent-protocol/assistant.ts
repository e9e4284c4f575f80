/**
 * Pure. Sophos's one assistant: the agent graph, `graph_id` `agent`. Its id is the one LangGraph's
 * JS server gives a graph registered under that name (uuid v5 of the graph id in the URL namespace,
 * libs/langgraph-api's getAssistantId), so a client configured for a LangGraph server's `agent`
 * finds it here under the same id; `agent` itself is accepted wherever an assistant id is.
 */
import { canonicalJson } from '../canonical-json';
import type { Assistant } from './protocol-dtos';
import type { AssistantSearch } from './request-schemas';

export const GRAPH_ID = 'agent';

/** uuid v5("agent", 6ba7b821-9dad-11d1-80b4-00c04fd430c8); test/unit/agent-protocol derives it. */
export const ASSISTANT_ID = 'fe096781-5601-53d2-b2f6-0d3403f7e9ca';

/** Whether `id` names the assistant: its uuid (any case) or the graph id. */
export function isAssistantId(id: string): boolean {
	return id === GRAPH_ID || id.toLowerCase() === ASSISTANT_ID;
}

/** The assistant, dated `since` (the service's start: it is defined by the code, not stored). */
export function assistantOf(since: string): Assistant {
	return {
		assistant_id: ASSISTANT_ID,
		graph_id: GRAPH_ID,
		config: {},
		context: {},
		created_at: since,
		updated_at: since,
		metadata: { created_by: 'system' },
		version: 1,
		name: GRAPH_ID,
		description: null
	};
}

/**
 * The assistant if it matches the search (graph id, name, metadata containment), sliced by
 * limit/offset as any search is. `select` picks fields.
 */
export function searchAssistants(assistant: Assistant, query: AssistantSearch): Partial<Assistant>[] {
	const matches =
		(query.graph_id == null || query.graph_id === assistant.graph_id) &&
		(query.name == null || assistant.name.includes(query.name)) &&
		Object.entries(query.metadata ?? {}).every(([k, v]) => canonicalJson(assistant.metadata[k]) === canonicalJson(v));
	const found = matches ? [assistant] : [];
	const page = found.slice(query.offset ?? 0, (query.offset ?? 0) + (query.limit ?? 10));
	const select = query.select;
	return select ? page.map((a) => Object.fromEntries(select.filter((f) => f in a).map((f) => [f, a[f as keyof Assistant]]))) : page;
}

/** GET /info: what the JS server reports, with every optional feature Sophos lacks switched off. */
export const PROTOCOL_INFO = {
	version: 'sophos',
	flags: { assistants: true, crons: false, langsmith: false, langsmith_tracing_replicas: false }
} as const;

const MESSAGES_SCHEMA = {
	type: 'array',
	description: 'LangChain messages; human content is a string or a list of text blocks',
	items: { type: 'object', properties: { type: { type: 'string' }, content: {} }, required: ['content'] }
} as const;

/** GET /assistants/{id}/schemas: the agent's state is its messages (MessagesAnnotation); it takes no config or context. */
export const AGENT_SCHEMAS = {
	graph_id: GRAPH_ID,
	input_schema: { type: 'object', properties: { messages: MESSAGES_SCHEMA } },
	output_schema: { type: 'object', properties: { messages: MESSAGES_SCHEMA } },
	state_schema: { type: 'object', properties: { messages: MESSAGES_SCHEMA } },
	config_schema: { type: 'object', properties: {} },
	context_schema: { type: 'object', properties: {} }
} as const;
