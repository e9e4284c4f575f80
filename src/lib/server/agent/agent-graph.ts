import { AIMessage, SystemMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
	type BaseCheckpointSaver,
	END,
	MessagesAnnotation,
	START,
	StateGraph
} from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';

export type AgentGraphParts = {
	checkpointer: BaseCheckpointSaver;
	/** A fresh client per call, so aborting one run's request never touches another's. */
	chatModel: () => BaseChatModel;
	/** The tools that are up right now; resolved at every step, so a server that comes back is used. */
	tools: () => Promise<StructuredToolInterface[]>;
	/** Re-read on every model call and never stored in the thread. */
	systemPrompt: () => Promise<string>;
	/** Turns a failed model call into a typed error while its type is still known. */
	classifyModelError: (e: unknown) => Error;
};

type State = typeof MessagesAnnotation.State;

function routeAfterAgent(state: State): 'tools' | typeof END {
	const last = state.messages.at(-1);
	return last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
}

/** The agent ⇄ tools graph; the thread id is the conversation id. */
export function buildAgentGraph(parts: AgentGraphParts) {
	async function agent(state: State, config: RunnableConfig) {
		const [tools, system] = await Promise.all([parts.tools(), parts.systemPrompt()]);
		const base = parts.chatModel();
		const model = tools.length && base.bindTools ? base.bindTools(tools) : base;
		try {
			const response = await model.invoke([new SystemMessage(system), ...state.messages], config);
			return { messages: [response] };
		} catch (e) {
			throw parts.classifyModelError(e);
		}
	}

	async function tools(state: State, config: RunnableConfig) {
		return new ToolNode(await parts.tools()).invoke(state, config);
	}

	return new StateGraph(MessagesAnnotation)
		.addNode('agent', agent)
		.addNode('tools', tools)
		.addEdge(START, 'agent')
		.addConditionalEdges('agent', routeAfterAgent, ['tools', END])
		.addEdge('tools', 'agent')
		.compile({ checkpointer: parts.checkpointer });
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;
