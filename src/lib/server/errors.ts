/**
 * The one closed set of error codes that crosses the wire, for HTTP bodies and SSE `chat-error`
 * events alike. Internal code throws `SophosError` with one of these; routes only translate.
 */
export const ERROR_CODES = {
	BAD_REQUEST: 400,
	NOT_FOUND: 404,
	SESSION_IN_PROGRESS: 409,
	RUN_NOT_RESUMABLE: 409,
	MESSAGE_TOO_LARGE: 413,
	PAYLOAD_TOO_LARGE: 413,
	SHUTTING_DOWN: 503,
	MODEL_UNREACHABLE: 502,
	MODEL_UNAVAILABLE: 502,
	/** The model server refused the API key (401/403). */
	MODEL_AUTH_FAILED: 502,
	/** The model server is rate limited or out of quota (429). */
	MODEL_RATE_LIMITED: 429,
	RECURSION_LIMIT: 500,
	AGENT_FAILURE: 500,
	OUTCOME_NOT_RECORDED: 500,
	INTERNAL_ERROR: 500,
	/** Interrupt causes, recorded on `interrupted` runs. */
	SHUTDOWN: 503,
	PROCESS_EXITED: 500
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class SophosError extends Error {
	override name = 'SophosError';
	constructor(
		readonly code: ErrorCode,
		message: string,
		options?: { cause?: unknown }
	) {
		super(message, options);
	}

	get status(): number {
		return ERROR_CODES[this.code];
	}
}

export type WireError = { code: ErrorCode; message: string };

export function isSophosError(e: unknown): e is SophosError {
	return e instanceof SophosError;
}
