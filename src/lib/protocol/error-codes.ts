/**
 * Pure. The closed sets of codes that cross the wire, in two families: API errors, answered by a
 * route with their HTTP status, and run outcomes, recorded on a run and sent as its terminal event.
 */

/** What a route answers when it refuses a request, with the HTTP status each code carries. */
export const API_ERROR_STATUS = {
	BAD_REQUEST: 400,
	/** SOPHOS_TOKEN is set and the request carries no token, or a wrong one. */
	UNAUTHORIZED: 401,
	/** A state-changing request from another origin than the page's own or ALLOWED_ORIGINS. */
	ORIGIN_NOT_ALLOWED: 403,
	NOT_FOUND: 404,
	SESSION_IN_PROGRESS: 409,
	RUN_NOT_RESUMABLE: 409,
	/** A resume of a conversation that waits for decisions on its tool calls. */
	APPROVAL_REQUIRED: 409,
	/** Decisions for a conversation that waits for none. */
	NOT_WAITING: 409,
	/** An answer to a question (MCP elicitation) already answered, timed out, or whose call has ended. */
	ELICITATION_CLOSED: 409,
	/** An answer sent for a question under another run than the one that asked it. */
	ELICITATION_OF_ANOTHER_RUN: 409,
	/** An edit or regenerate whose starting checkpoint CHECKPOINT_RETENTION has pruned. */
	BRANCH_POINT_PRUNED: 409,
	/** POST /threads with `if_exists: "raise"` (the default) for a thread id that is taken. */
	THREAD_EXISTS: 409,
	/** An import asked to keep the bundle's conversation id, and a conversation has it. */
	CONVERSATION_EXISTS: 409,
	/** An import asked to keep the bundle's ids, and another conversation holds one of its run ids. */
	RUN_EXISTS: 409,
	MESSAGE_TOO_LARGE: 413,
	PAYLOAD_TOO_LARGE: 413,
	/** A prompt's messages or a resource longer than MCP_CONTENT_MAX_CHARS: it is refused, not cut. */
	MCP_CONTENT_TOO_LARGE: 413,
	/** A resource that holds binary content (a blob): only text resources are read or attached. */
	MCP_CONTENT_NOT_TEXT: 415,
	/** A Host that is neither loopback nor in ALLOWED_HOSTS: what a DNS-rebinding page sends. */
	HOST_NOT_ALLOWED: 421,
	/** A body of the LangGraph Agent Server protocol that its schema refuses; the message names the field. */
	VALIDATION_FAILED: 422,
	/** Human content with image or file blocks: Sophos has no attachments yet. */
	UNSUPPORTED_CONTENT: 422,
	/** Too many wrong tokens from one address: wait Retry-After seconds. */
	TOO_MANY_ATTEMPTS: 429,
	/** MAX_CONCURRENT_RUNS runs are running; a message sent with ifBusy "enqueue" is queued instead. */
	TOO_MANY_RUNS: 429,
	/** The conversation already holds MAX_QUEUED_MESSAGES queued messages. */
	QUEUE_FULL: 429,
	/** MAX_STREAMS_PER_RUN streams already follow this run. */
	TOO_MANY_STREAMS: 429,
	INTERNAL_ERROR: 500,
	/** A part of the LangGraph Agent Server protocol Sophos does not do (crons, store, state updates). */
	NOT_IMPLEMENTED: 501,
	/** A sign-in to a remote MCP server could not begin: its authorization server could not be found or reached, or refused to register Sophos. */
	MCP_SIGN_IN_FAILED: 502,
	/** An MCP server answered a prompt or resource request with an error of its own, or did not answer in time. */
	MCP_REQUEST_FAILED: 502,
	SHUTTING_DOWN: 503,
	/** The MCP server a prompt or resource request names is down, starting, or waiting for a sign-in. */
	MCP_SERVER_UNAVAILABLE: 503,
	/** Several instances: the one running the question's call holds its lease but did not take the answer within two leases (RUN_LEASE_MS). */
	ELICITATION_OWNER_UNAVAILABLE: 503,
	/** The database (PostgreSQL) cannot be reached now: stopped, restarting or cut off. Try again once it is back. */
	DATABASE_UNAVAILABLE: 503
} as const;

export type ApiErrorCode = keyof typeof API_ERROR_STATUS;

/**
 * Why a run `failed`: recorded on the run and sent as its `chat-error` event. MODEL_AUTH_FAILED:
 * the model server refused the API key (401/403); MODEL_RATE_LIMITED: it is rate limited or out of
 * quota (429). Both leave the step pending, so the run resumes once fixed.
 */
export const RUN_FAILURE_CODES = [
	'MODEL_UNREACHABLE',
	'MODEL_UNAVAILABLE',
	'MODEL_AUTH_FAILED',
	'MODEL_RATE_LIMITED',
	'RECURSION_LIMIT',
	'AGENT_FAILURE'
] as const;
export type RunFailureCode = (typeof RUN_FAILURE_CODES)[number];

/** Why a run was `interrupted`: recorded on the run and sent as the `cause` of its `end` event. */
export const INTERRUPT_CAUSES = ['SHUTDOWN', 'PROCESS_EXITED', 'TAKEN_OVER'] as const;
export type InterruptCause = (typeof INTERRUPT_CAUSES)[number];

/** The run ended but writing its outcome failed: the stream says so, since the ledger cannot. */
export const OUTCOME_NOT_RECORDED = 'OUTCOME_NOT_RECORDED';

/** Codes a `chat-error` event carries: a run's failure, or a refusal sent as a single event. */
export type StreamErrorCode = RunFailureCode | typeof OUTCOME_NOT_RECORDED | ApiErrorCode;

/** An error as both families send it: in an HTTP body as `{error: WireError}`, on a run as `error`. */
export type WireError = { code: string; message: string };
