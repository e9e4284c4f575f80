/**
 * Pure. A Sophos thread's state as the protocol's `values`: the messages the API shows, as
 * LangChain message dicts with the ids they have in the checkpoint (a UI merging streamed chunks by
 * id finds the same message again), and, while calls wait for a person, `__interrupt__` in the
 * schema of LangChain's human-in-the-loop middleware that agent-chat-ui renders.
 */
import { createHash } from 'node:crypto';
import type { BaseMessage } from '@langchain/core/messages';
import type { MessageDto, ModelUsage, PendingApproval } from '../../protocol';
import { toMessageDto } from '../agent/messages';
import type {
	ActionRequest,
	HitlDecisionType,
	HitlRequest,
	MessageDict,
	ProtocolInterrupt,
	ReviewConfig,
	ThreadValues,
	UsageMetadata
} from './protocol-dtos';

/** Every call Sophos asks about can be approved, approved with edited arguments, or denied. */
const ALLOWED_DECISIONS: HitlDecisionType[] = ['approve', 'edit', 'reject'];

/**
 * LangChain's usage needs both counts; a provider that gave one of them (or only timings) has no
 * usage_metadata rather than a made-up zero.
 */
function usageMetadataOf(usage: ModelUsage | undefined): UsageMetadata | undefined {
	if (usage?.inputTokens === undefined || usage.outputTokens === undefined) return undefined;
	return { input_tokens: usage.inputTokens, output_tokens: usage.outputTokens, total_tokens: usage.inputTokens + usage.outputTokens };
}

/** One message of the API (agent/messages.ts toMessageDto) as a LangChain message dict. */
export function messageDictOf(message: MessageDto): MessageDict {
	if (message.role === 'user') {
		return { type: 'human', id: message.id, content: message.content, additional_kwargs: {}, response_metadata: {} };
	}
	if (message.role === 'assistant') {
		const usage = usageMetadataOf(message.usage);
		return {
			type: 'ai',
			id: message.id,
			content: message.content,
			additional_kwargs: message.reasoning ? { reasoning_content: message.reasoning } : {},
			response_metadata: {
				...(message.model ? { model_name: message.model } : {}),
				...(message.finishReason ? { finish_reason: message.finishReason } : {})
			},
			tool_calls: (message.toolCalls ?? []).map((c) => ({ id: c.id ?? '', name: c.name, args: c.args, type: 'tool_call' as const })),
			invalid_tool_calls: [],
			...(usage ? { usage_metadata: usage } : {})
		};
	}
	return {
		type: 'tool',
		id: message.id,
		content: message.content,
		...(message.name ? { name: message.name } : {}),
		tool_call_id: message.toolCallId ?? '',
		status: message.status ?? 'success',
		additional_kwargs: message.reusedFrom ? { reused_from: message.reusedFrom } : {},
		response_metadata: {}
	};
}

/** A LangChain message from a checkpoint or a model step as a dict; null for kinds the API does not show. */
export function messageDictOfMessage(message: BaseMessage): MessageDict | null {
	const dto = toMessageDto(message);
	return dto ? messageDictOf(dto) : null;
}

/**
 * The interrupt's id: the same for as long as the same calls wait, another once they are decided
 * and new ones wait, so a resume that names an interrupt is known to answer the current question
 * or a stale one.
 */
export function interruptIdOf(approvals: readonly Pick<PendingApproval, 'toolCallId'>[]): string {
	const hash = createHash('sha256');
	for (const a of approvals) hash.update(a.toolCallId).update('\0');
	return hash.digest('hex').slice(0, 32);
}

/** The name of the graph's node a pause for approval belongs to, as the state's task names it. */
export const APPROVAL_TASK_NAME = 'tools';

/** A call asked about: by its journal key, with what the person is shown of it. */
export type AskedCall = { toolCallId: string; tool: string; args: Record<string, unknown>; description: string };

/** A waiting call as the approval card shows it: the server's reason is its description. */
export function askedCallOf(approval: PendingApproval): AskedCall {
	return { toolCallId: approval.toolCallId, tool: approval.tool, args: approval.args, description: approval.reason.message };
}

/** The waiting calls as one interrupt, in the order they were asked about; undefined when none waits. */
export function approvalInterrupt(approvals: readonly PendingApproval[]): ProtocolInterrupt | undefined {
	return interruptOfCalls(approvals.map(askedCallOf));
}

/** The calls asked about as one interrupt, in the order they were asked; undefined when there are none. */
export function interruptOfCalls(asked: readonly AskedCall[]): ProtocolInterrupt | undefined {
	if (asked.length === 0) return undefined;
	const actionRequests: ActionRequest[] = asked.map((a) => ({ name: a.tool, args: a.args, description: a.description }));
	const reviewConfigs: ReviewConfig[] = asked.map((a) => ({
		action_name: a.tool,
		actionName: a.tool,
		allowed_decisions: [...ALLOWED_DECISIONS],
		allowedDecisions: [...ALLOWED_DECISIONS]
	}));
	const value: HitlRequest = {
		action_requests: actionRequests,
		actionRequests,
		review_configs: reviewConfigs,
		reviewConfigs
	};
	return { id: interruptIdOf(asked), value };
}

/** The thread's values: its shown messages, and `__interrupt__` while calls wait for a decision. */
export function threadValuesOf(messages: readonly MessageDto[], approvals: readonly PendingApproval[]): ThreadValues {
	const interrupt = approvalInterrupt(approvals);
	return { messages: messages.map(messageDictOf), ...(interrupt ? { __interrupt__: [interrupt] } : {}) };
}
