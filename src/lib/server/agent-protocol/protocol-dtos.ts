/**
 * Pure. The answers of the LangGraph Agent Server protocol as `@langchain/langgraph-sdk` reads them
 * (its schema.ts: Assistant, Thread, ThreadState, ThreadTask, Checkpoint, Interrupt), in the field
 * names the SDK and agent-chat-ui use, snake_case included.
 */

export type ProtocolMetadata = Record<string, unknown>;

/** Sophos has one namespace: the root graph; `checkpoint_map` is for subgraphs, which it has none of. */
export type ProtocolCheckpoint = {
	thread_id: string;
	checkpoint_ns: '';
	/** null: a thread with no checkpoint yet (made, never run). */
	checkpoint_id: string | null;
	checkpoint_map: null;
};

export type ThreadStatus = 'idle' | 'busy' | 'interrupted' | 'error';

/** A LangChain message as a dict (the SDK's types.messages.ts), as `values.messages` carries it. */
export type HumanMessageDict = {
	type: 'human';
	id: string;
	content: string;
	additional_kwargs: Record<string, unknown>;
	response_metadata: Record<string, unknown>;
};

export type ToolCallDict = { id: string; name: string; args: Record<string, unknown>; type: 'tool_call' };

export type UsageMetadata = { input_tokens: number; output_tokens: number; total_tokens: number };

export type AiMessageDict = {
	type: 'ai';
	id: string;
	content: string;
	/** `reasoning_content`: the model's thinking, kept apart from the answer as LangChain's providers do. */
	additional_kwargs: { reasoning_content?: string };
	/** `model_name`: the `<provider>/<model>` that gave the answer; `finish_reason` `length` for a cut answer. */
	response_metadata: { model_name?: string; finish_reason?: 'length' };
	tool_calls: ToolCallDict[];
	invalid_tool_calls: [];
	usage_metadata?: UsageMetadata;
};

export type ToolMessageDict = {
	type: 'tool';
	id: string;
	content: string;
	name?: string;
	tool_call_id: string;
	status: 'success' | 'error';
	/** `reused_from`: the call on another branch whose recorded result this is (see Guarantees). */
	additional_kwargs: { reused_from?: { toolCallId: string; messageId?: string } };
	response_metadata: Record<string, unknown>;
};

export type MessageDict = HumanMessageDict | AiMessageDict | ToolMessageDict;

/**
 * A pause for approval in the schema of LangChain's human-in-the-loop middleware, which
 * agent-chat-ui renders: one action request per waiting call, in the order the calls were asked
 * about (decisions answer them by position), each with its review config. Both spellings are
 * sent: snake_case as agent-chat-ui and Python servers write it, camelCase as the SDK's
 * normalizeHitlInterruptPayload and LangChain.js read it.
 */
export type ActionRequest = { name: string; args: Record<string, unknown>; description: string };
export type ReviewConfig = {
	action_name: string;
	actionName: string;
	allowed_decisions: HitlDecisionType[];
	allowedDecisions: HitlDecisionType[];
};
export type HitlDecisionType = 'approve' | 'edit' | 'reject';
export type HitlRequest = {
	action_requests: ActionRequest[];
	actionRequests: ActionRequest[];
	review_configs: ReviewConfig[];
	reviewConfigs: ReviewConfig[];
};

export type ProtocolInterrupt = { id: string; value: HitlRequest };

/** A thread's state values: its messages and, while calls wait for a person, the interrupt. */
export type ThreadValues = { messages: MessageDict[]; __interrupt__?: ProtocolInterrupt[] };

export type ThreadTask = {
	id: string;
	name: string;
	error: string | null;
	interrupts: ProtocolInterrupt[];
	checkpoint: null;
	state: null;
};

export type ThreadState = {
	values: ThreadValues;
	next: string[];
	checkpoint: ProtocolCheckpoint;
	metadata: ProtocolMetadata;
	created_at: string | null;
	parent_checkpoint: ProtocolCheckpoint | null;
	tasks: ThreadTask[];
};

export type Thread = {
	thread_id: string;
	created_at: string;
	updated_at: string;
	state_updated_at: string;
	metadata: ProtocolMetadata;
	status: ThreadStatus;
	values: ThreadValues;
	/** By task id: the interrupts of the thread's current state. */
	interrupts: Record<string, ProtocolInterrupt[]>;
};

export type Assistant = {
	assistant_id: string;
	graph_id: string;
	config: Record<string, unknown>;
	context: Record<string, unknown>;
	created_at: string;
	updated_at: string;
	metadata: ProtocolMetadata;
	version: number;
	name: string;
	description: string | null;
};

export function checkpointOf(threadId: string, checkpointId: string | null): ProtocolCheckpoint {
	return { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpointId, checkpoint_map: null };
}
