import type { ApiErrorCode } from '../../protocol';
import type { ProtocolRefusal } from '../agent-protocol/protocol-refusal';
import type { DecisionRefusal } from '../approvals/decision-check';
import type { BundleRefusal } from '../conversations/conversation-bundles';
import type { ConversationRefusal } from '../conversations/conversation-service';
import { ApiError } from '../errors';
import { mcpRefusalMessage, type McpRefusal } from '../mcp/mcp-refusal';
import type { ModelRefusal } from '../models/model-catalog';
import { isRefusal, type RunRefusal } from '../runs/run-refusal';

/**
 * Every expected refusal the runtime answers with a value: the run core's, a conversation's, a
 * bundle's, a model choice's, an MCP request's, the Agent Server protocol's.
 */
export type Refusal = RunRefusal | ConversationRefusal | BundleRefusal | ModelRefusal | McpRefusal | ProtocolRefusal;

type Answer<R> = readonly [ApiErrorCode, string | ((r: R) => string)];

const DECISION_INVALID: Record<Extract<DecisionRefusal, { refused: 'decision-invalid' }>['why'], (id: string) => string> = {
	'unknown-call': (id) => `No call waits with the id "${id}"`,
	'decided-twice': (id) => `The call "${id}" is decided twice`,
	'edit-without-args': (id) => `Editing "${id}" needs its new "args"`,
	'args-without-edit': (id) => `"args" goes with "edit" only (call "${id}")`,
	'remember-on-deny': (id) => `"remember" goes with "approve" or "edit" (call "${id}")`
};

/** The HTTP answer to each refusal: its code (which gives the status), and the message a client reads. */
const ANSWERS: { [K in Refusal['refused']]: Answer<Extract<Refusal, { refused: K }>> } = {
	'conversation-not-found': ['NOT_FOUND', 'Conversation Not Found'],
	'run-not-found': ['NOT_FOUND', 'Run Not Found'],
	busy: ['SESSION_IN_PROGRESS', 'Previous request still in progress'],
	full: [
		'TOO_MANY_RUNS',
		(r) =>
			`${r.maxConcurrentRuns} runs are running (MAX_CONCURRENT_RUNS): try again when one ends, ` +
			'or send the message with ifBusy "enqueue" to queue it on its conversation'
	],
	'shutting-down': ['SHUTTING_DOWN', 'The service is shutting down; try again shortly.'],
	'nothing-to-resume': ['RUN_NOT_RESUMABLE', 'Nothing to resume: the last run finished'],
	'approval-required': ['APPROVAL_REQUIRED', 'This conversation waits for a decision on its tool calls: send "decisions"'],
	'queue-full': [
		'QUEUE_FULL',
		(r) => `This conversation already has ${r.maxQueuedMessages} queued messages (MAX_QUEUED_MESSAGES): wait until they have run`
	],
	'not-waiting': ['NOT_WAITING', 'This conversation is not waiting for a decision'],
	'decision-invalid': ['BAD_REQUEST', (r) => DECISION_INVALID[r.why](r.toolCallId)],
	'decisions-missing': ['BAD_REQUEST', (r) => `Decide every waiting call at once; missing: ${r.missing.join(', ')}`],
	'message-not-on-branch': ['NOT_FOUND', 'Message Not Found on the active branch'],
	'wrong-role': ['BAD_REQUEST', (r) => (r.target === 'edit' ? 'editOf must name a user message' : 'regenerate must name an assistant message')],
	'branch-point-pruned': [
		'BRANCH_POINT_PRUNED',
		'The checkpoint before this message is no longer kept (CHECKPOINT_RETENTION), so no branch can start there'
	],
	'not-a-model-step': ['BAD_REQUEST', 'This message was not written by a model step, so it cannot be regenerated'],
	'delete-while-running': ['SESSION_IN_PROGRESS', 'A run is active on this conversation; wait for it to end'],
	'switch-while-running': ['SESSION_IN_PROGRESS', 'A run is active on this conversation; switch branches when it ends'],
	'switch-while-waiting': ['APPROVAL_REQUIRED', 'Tool calls of this branch wait for a decision: decide them before switching'],
	'message-not-in-any-branch': ['NOT_FOUND', 'Message Not Found in any branch of this conversation'],
	'export-while-running': ['SESSION_IN_PROGRESS', 'A run is active on this conversation; export it once the run ends'],
	'bundle-invalid': ['BAD_REQUEST', (r) => `Not an importable bundle: ${r.problem}`],
	'conversation-exists': ['CONVERSATION_EXISTS', (r) => `A conversation with id ${r.conversationId} exists: import it under a new id`],
	'runs-taken': [
		'RUN_EXISTS',
		({ runIds: [first, ...more] }) =>
			`Run ${first}${more.length ? ` (and ${more.length} more)` : ''} of the bundle belongs to another conversation here: import it under new ids (without keepId)`
	],
	'unknown-provider': ['BAD_REQUEST', (r) => `Unknown model "${r.model}": no provider "${r.provider}" is configured (configured: ${r.configured})`],
	'model-not-served': ['BAD_REQUEST', (r) => `Unknown model "${r.model}": "${r.provider}" serves ${r.serves} (see GET /api/models)`],
	'mcp-server-unknown': ['NOT_FOUND', mcpRefusalMessage],
	'mcp-not-oauth': ['BAD_REQUEST', mcpRefusalMessage],
	'mcp-sign-in-failed': ['MCP_SIGN_IN_FAILED', mcpRefusalMessage],
	'prompt-server-unknown': ['NOT_FOUND', mcpRefusalMessage],
	'prompt-unknown': ['NOT_FOUND', mcpRefusalMessage],
	'prompt-argument-unknown': ['BAD_REQUEST', mcpRefusalMessage],
	'prompt-argument-missing': ['BAD_REQUEST', mcpRefusalMessage],
	'prompt-too-large': ['MCP_CONTENT_TOO_LARGE', mcpRefusalMessage],
	'resource-not-text': ['MCP_CONTENT_NOT_TEXT', mcpRefusalMessage],
	'resource-too-large': ['MCP_CONTENT_TOO_LARGE', mcpRefusalMessage],
	'mcp-needs-sign-in': ['MCP_SERVER_UNAVAILABLE', mcpRefusalMessage],
	'mcp-not-running': ['MCP_SERVER_UNAVAILABLE', mcpRefusalMessage],
	'mcp-resource-not-found': ['NOT_FOUND', mcpRefusalMessage],
	'mcp-method-not-found': ['NOT_FOUND', mcpRefusalMessage],
	'mcp-invalid-params': ['BAD_REQUEST', mcpRefusalMessage],
	'mcp-timed-out': ['MCP_REQUEST_FAILED', mcpRefusalMessage],
	'mcp-failed': ['MCP_REQUEST_FAILED', mcpRefusalMessage],
	'thread-not-found': ['NOT_FOUND', (r) => (r.threadId === undefined ? 'Thread Not Found' : `Thread ${r.threadId} not found`)],
	'thread-exists': ['THREAD_EXISTS', (r) => `Thread ${r.threadId} already exists`],
	'thread-delete-while-running': ['SESSION_IN_PROGRESS', 'A run is active on this thread; wait for it to end'],
	'checkpoint-not-found': ['NOT_FOUND', (r) => `Checkpoint ${r.checkpointId} not found in thread ${r.threadId}`],
	'checkpoint-off-branch': ['NOT_FOUND', (r) => `Checkpoint "${r.checkpointId}" is not on the thread's active branch`],
	'checkpoint-without-next': [
		'VALIDATION_FAILED',
		(r) => `Invalid field "checkpoint": the active branch shows no ${r.type === 'human' ? 'human message' : 'answer'} right after it`
	],
	'thread-not-waiting': ['NOT_WAITING', 'This thread is not waiting for a decision'],
	'stale-interrupt': ['NOT_WAITING', (r) => `The interrupt "${r.interruptId}" is not the one this thread waits on`],
	'decisions-miscounted': [
		'VALIDATION_FAILED',
		(r) => `Invalid field "command.resume.decisions": ${r.waiting} calls wait, ${r.given} decisions given`
	],
	'rollback-held': ['SESSION_IN_PROGRESS', 'The thread could not be rolled back: a run holds it']
};

/** The HTTP answer to a refusal: status by code, and the message a client reads. */
export function runRefusalError(r: Refusal): ApiError {
	const [code, message] = ANSWERS[r.refused] as Answer<Refusal>;
	return new ApiError(code, typeof message === 'string' ? message : message(r));
}

/** `result` itself, or its refusal thrown as the ApiError a route answers with. */
export function unlessRefused<T extends object>(result: T | Refusal): T {
	if (isRefusal<T, Refusal>(result)) throw runRefusalError(result);
	return result;
}
