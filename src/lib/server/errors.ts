import { API_ERROR_STATUS, type ApiErrorCode, type RunFailureCode } from '../protocol';

/** One base for our typed errors: callers branch on `code`, a closed union, never on the message. */
abstract class CodedError<Code extends string> extends Error {
	constructor(
		readonly code: Code,
		message: string,
		options?: { cause?: unknown }
	) {
		super(message, options);
	}
}

/**
 * A request the runtime refuses. Routes translate it into its HTTP status and `{error}` body;
 * nothing else reaches a client but a plain INTERNAL_ERROR (http/api-error.ts).
 */
export class ApiError extends CodedError<ApiErrorCode> {
	override name = 'ApiError';

	get status(): number {
		return API_ERROR_STATUS[this.code];
	}
}

/**
 * Why a run failed, given where the failure is still typed (a model call, the graph). The
 * executor records its code as the run's outcome; it is never an HTTP answer.
 */
export class RunFailure extends CodedError<RunFailureCode> {
	override name = 'RunFailure';
}
