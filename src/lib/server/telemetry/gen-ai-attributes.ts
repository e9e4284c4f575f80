// The names of span attributes Sophos sets. The GenAI and MCP conventions are in development
// (open-telemetry/semantic-conventions-genai), so each name is written here once: when one is
// renamed upstream, this file is the one to change.

export const GEN_AI = {
	operationName: 'gen_ai.operation.name',
	providerName: 'gen_ai.provider.name',
	agentName: 'gen_ai.agent.name',
	conversationId: 'gen_ai.conversation.id',
	requestModel: 'gen_ai.request.model',
	responseModel: 'gen_ai.response.model',
	responseFinishReasons: 'gen_ai.response.finish_reasons',
	inputTokens: 'gen_ai.usage.input_tokens',
	outputTokens: 'gen_ai.usage.output_tokens',
	reasoningTokens: 'gen_ai.usage.reasoning.output_tokens',
	timeToFirstChunk: 'gen_ai.response.time_to_first_chunk',
	toolName: 'gen_ai.tool.name',
	toolCallId: 'gen_ai.tool.call.id',
	toolType: 'gen_ai.tool.type',
	toolCallArguments: 'gen_ai.tool.call.arguments',
	toolCallResult: 'gen_ai.tool.call.result',
	inputMessages: 'gen_ai.input.messages',
	outputMessages: 'gen_ai.output.messages'
} as const;

/** Values of gen_ai.operation.name. */
export const OPERATION = { invokeAgent: 'invoke_agent', chat: 'chat', executeTool: 'execute_tool' } as const;

export const MCP = {
	methodName: 'mcp.method.name',
	sessionId: 'mcp.session.id',
	networkTransport: 'network.transport'
} as const;

export const GENERAL = {
	serverAddress: 'server.address',
	serverPort: 'server.port',
	errorType: 'error.type'
} as const;

/** Sophos's own, where no convention names the thing. */
export const SOPHOS = {
	runId: 'sophos.run.id',
	runTrigger: 'sophos.run.trigger',
	runStatus: 'sophos.run.status',
	toolOutcome: 'sophos.tool.outcome',
	continuesRun: 'sophos.run.continues'
} as const;

/** The agent's name in gen_ai.agent.name and in the invoke_agent span's name. */
export const AGENT_NAME = 'sophos';
