/**
 * The read side of the LangGraph Agent Server protocol, wired once by the runtime: the one
 * assistant, the threads and their states. Routes under src/routes/ (the SDK's root paths) parse
 * and call these; runs over the protocol go through Sophos's own run service.
 */
import type { AgentGraph } from '../agent/agent-graph';
import type { Assistant } from './protocol-dtos';
import { assistantOf } from './assistant';
import { ProtocolThreads, type ProtocolThreadsParts } from './protocol-threads';
import { ThreadStates, type ThreadStatesParts } from './thread-states';

/** The graph as LangGraph draws it (nodes and edges), what GET /assistants/{id}/graph answers. */
export type AssistantGraph = { nodes: unknown[]; edges: unknown[] };

export type AgentProtocol = {
	assistant: Assistant;
	graph: () => Promise<AssistantGraph>;
	threads: ProtocolThreads;
	states: ThreadStates;
};

export function createAgentProtocol(
	parts: Omit<ThreadStatesParts, 'stored'> & Omit<ProtocolThreadsParts, 'states'> & { graph: Pick<AgentGraph, 'getGraphAsync'> }
): AgentProtocol {
	const states = new ThreadStates({ ...parts, stored: parts.storage.threads });
	return {
		assistant: assistantOf(parts.now()),
		graph: async () => (await parts.graph.getGraphAsync({})).toJSON() as AssistantGraph,
		threads: new ProtocolThreads({ storage: parts.storage, states, now: parts.now }),
		states
	};
}
