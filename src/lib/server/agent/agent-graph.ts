import { randomUUID } from 'node:crypto';
import { AIMessage, SystemMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { BaseChatModel } from '@langchain/core/language_models/chat_models';
import type { StructuredToolInterface } from '@langchain/core/tools';
import type { RunnableConfig } from '@langchain/core/runnables';
import {
	type BaseCheckpointSaver,
	END,
	GraphDrained,
	type LangGraphRunnableConfig,
	START,
	StateGraph,
	messagesStateReducer
} from '@langchain/langgraph';
import type { StepWrite } from './agent-events';
import { AgentState } from './agent-state';
import { streamAnswer } from './answer-stream';
import type { ModelStep } from '../models/model-step';

export type AgentGraphParts = {
	checkpointer: BaseCheckpointSaver;
	/** The model for this step of this run (`config` holds the thread and run ids, and the step's signal); may throw a typed error. */
	model: (config: RunnableConfig) => Promise<ModelStep>;
	/** The tools to offer now; resolved at every step, so a server that comes back is used. */
	tools: () => Promise<StructuredToolInterface[]>;
	/** Runs the tool calls of the last assistant message and returns their tool messages. */
	runTools: (messages: BaseMessage[], config: RunnableConfig) => Promise<{ messages: BaseMessage[] }>;
	/** Undefined, or a promise of the step's turn of the event loop when it is busy (see EventLoopShare). */
	turn: () => Promise<void> | undefined;
	/** Re-read on every model call and never stored in the thread. */
	systemPrompt: () => Promise<string>;
	/** MAX_ANSWER_CHARS: what one step keeps of an answer (answer-stream.ts). */
	maxAnswerChars: number;
};

type State = typeof AgentState.State;

/**
 * The key of `configurable` under which a run hands its steps the conversation's model (null:
 * DEFAULT_MODEL), read once as the run begins rather than at every model call (issue 26).
 */
export const CONVERSATION_MODEL = 'conversation_model';

/** The model the step's run named under CONVERSATION_MODEL; when it named none, `read` of the thread's. */
export async function conversationModel(config: RunnableConfig, read: (threadId: string) => Promise<string | null>): Promise<string | null> {
	const model: unknown = config.configurable?.[CONVERSATION_MODEL];
	return typeof model === 'string' || model === null ? model : read(String(config.configurable?.thread_id));
}

/**
 * As each step begins, before its model or tool calls. A run asked to drain while this step waited
 * for its turn stops here, at the step boundary, as LangGraph's own loop would before the next
 * superstep: the step has written nothing, so the thread's checkpoint still holds it to resume.
 */
async function beginStep(parts: AgentGraphParts, config: LangGraphRunnableConfig): Promise<void> {
	const wait = parts.turn();
	if (wait) await wait;
	if (config.control?.drainRequested) throw new GraphDrained(config.control.drainReason);
}

/** The step LangGraph runs this node in, as its stream metadata numbers it. */
function stepOf(config: LangGraphRunnableConfig): number {
	const step = config.metadata?.langgraph_step;
	return typeof step === 'number' ? step : -1;
}

/** Hands the run what a step did, through LangGraph's `custom` stream mode (agent-events.ts reads it). */
function write(config: LangGraphRunnableConfig, data: StepWrite): void {
	config.writer?.(data);
}

function routeAfterAgent(state: State): 'tools' | typeof END {
	const last = state.messages.at(-1);
	return last && AIMessage.isInstance(last) && (last.tool_calls?.length ?? 0) > 0 ? 'tools' : END;
}

/** The agent ⇄ tools graph; the thread id is the conversation id. */
export function buildAgentGraph(parts: AgentGraphParts) {
	async function agent(state: State, config: LangGraphRunnableConfig) {
		const [tools, system] = await Promise.all([parts.tools(), parts.systemPrompt()]);
		await beginStep(parts, config);
		const step = await parts.model(config);
		// The answer's id is chosen before its first token, so whoever streams the tokens can name the
		// message they belong to as the thread will hold it (the Agent Server protocol's messages mode).
		const messageId = randomUUID();
		const at = { node: 'agent' as const, step: stepOf(config), name: step.name, messageId };
		let response: BaseMessage;
		try {
			const prompt = [new SystemMessage(system), ...state.messages];
			step.sending(prompt);
			response = await streamAnswer(step.chat, prompt, {
				tools,
				signal: config.signal,
				handOn: (pieces) => write(config, { ...at, pieces }),
				maxChars: parts.maxAnswerChars
			});
		} catch (e) {
			throw step.classifyError(e);
		}
		response.id = messageId;
		const calls = (response as AIMessage).tool_calls ?? [];
		if (calls.length) write(config, { ...at, calls });
		// A streamed reply is an AIMessageChunk, which the reducer turns into an AIMessage for the
		// thread. Returning that AIMessage makes the step's pending write the same bytes as the
		// message in the next checkpoint, so the saver stores it once (checkpoint/write-links.ts).
		return { messages: messagesStateReducer([], [step.record(response)]) };
	}

	async function tools(state: State, config: LangGraphRunnableConfig) {
		await beginStep(parts, config);
		const done = await parts.runTools(state.messages, config);
		const results = done.messages.filter((m): m is ToolMessage => ToolMessage.isInstance(m));
		if (results.length) write(config, { node: 'tools', step: stepOf(config), results });
		return done;
	}

	return new StateGraph(AgentState)
		.addNode('agent', agent)
		.addNode('tools', tools)
		.addEdge(START, 'agent')
		.addConditionalEdges('agent', routeAfterAgent, ['tools', END])
		.addEdge('tools', 'agent')
		.compile({ checkpointer: parts.checkpointer });
}

export type AgentGraph = ReturnType<typeof buildAgentGraph>;
