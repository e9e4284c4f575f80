import { ApiError } from '../errors';
import { isRefusal, type RunRefusal } from '../runs/run-refusal';

/** The HTTP answer to each refusal of the run core: status by code, and the message a client reads. */
export function runRefusalError(r: RunRefusal): ApiError {
	switch (r.refused) {
		case 'conversation-not-found':
			return new ApiError('NOT_FOUND', 'Conversation Not Found');
		case 'run-not-found':
			return new ApiError('NOT_FOUND', 'Run Not Found');
		case 'busy':
			return new ApiError('SESSION_IN_PROGRESS', 'Previous request still in progress');
		case 'full':
			return new ApiError(
				'TOO_MANY_RUNS',
				`${r.maxConcurrentRuns} runs are running (MAX_CONCURRENT_RUNS): try again when one ends, ` +
					'or send the message with ifBusy "enqueue" to queue it on its conversation'
			);
		case 'shutting-down':
			return new ApiError('SHUTTING_DOWN', 'The service is shutting down; try again shortly.');
		case 'nothing-to-resume':
			return new ApiError('RUN_NOT_RESUMABLE', 'Nothing to resume: the last run finished');
		case 'approval-required':
			return new ApiError('APPROVAL_REQUIRED', 'This conversation waits for a decision on its tool calls: send "decisions"');
		case 'message-not-on-branch':
			return new ApiError('NOT_FOUND', 'Message Not Found on the active branch');
		case 'wrong-role':
			return new ApiError('BAD_REQUEST', r.target === 'edit' ? 'editOf must name a user message' : 'regenerate must name an assistant message');
		case 'branch-point-pruned':
			return new ApiError(
				'BRANCH_POINT_PRUNED',
				'The checkpoint before this message is no longer kept (CHECKPOINT_RETENTION), so no branch can start there'
			);
		case 'not-a-model-step':
			return new ApiError('BAD_REQUEST', 'This message was not written by a model step, so it cannot be regenerated');
	}
}

/** `result` itself, or its refusal thrown as the ApiError a route answers with. */
export function unlessRefused<T extends object>(result: T | RunRefusal): T {
	if (isRefusal(result)) throw runRefusalError(result);
	return result;
}
