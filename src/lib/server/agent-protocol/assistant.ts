/**
 * Pure. Sophos's one assistant: the agent graph, `graph_id` `agent`. Its id is the one LangGraph's
 * JS server gives a graph registered under that name (uuid v5 of the graph id in the URL namespace,
 * libs/langgraph-api's getAssistantId), so a client configured for a LangGraph server's `agent`
 * finds it here under the same id; `agent` itself is accepted wherever an assistant id is.
 */
import type { Assistant } from './protocol-dtos';

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
