import { describe, expect, it } from 'vitest';
import { runRefusalError, unlessRefused } from '../../../src/lib/server/http/run-refusal-error';
import type { Refusal } from '../../../src/lib/server/http/run-refusal-error';

describe('runRefusalError', () => {
	const cases: [Refusal, string, number][] = [
		[{ refused: 'conversation-not-found' }, 'NOT_FOUND', 404],
		[{ refused: 'run-not-found' }, 'NOT_FOUND', 404],
		[{ refused: 'busy' }, 'SESSION_IN_PROGRESS', 409],
		[{ refused: 'full', maxConcurrentRuns: 3 }, 'TOO_MANY_RUNS', 429],
		[{ refused: 'shutting-down' }, 'SHUTTING_DOWN', 503],
		[{ refused: 'nothing-to-resume' }, 'RUN_NOT_RESUMABLE', 409],
		[{ refused: 'approval-required' }, 'APPROVAL_REQUIRED', 409],
		[{ refused: 'message-not-on-branch' }, 'NOT_FOUND', 404],
		[{ refused: 'wrong-role', target: 'edit' }, 'BAD_REQUEST', 400],
		[{ refused: 'branch-point-pruned' }, 'BRANCH_POINT_PRUNED', 409],
		[{ refused: 'not-a-model-step' }, 'BAD_REQUEST', 400],
		[{ refused: 'queue-full', maxQueuedMessages: 2 }, 'QUEUE_FULL', 429],
		[{ refused: 'not-waiting' }, 'NOT_WAITING', 409],
		[{ refused: 'decision-invalid', toolCallId: 'c', why: 'unknown-call' }, 'BAD_REQUEST', 400],
		[{ refused: 'decisions-missing', missing: ['a'] }, 'BAD_REQUEST', 400],
		[{ refused: 'delete-while-running' }, 'SESSION_IN_PROGRESS', 409],
		[{ refused: 'switch-while-running' }, 'SESSION_IN_PROGRESS', 409],
		[{ refused: 'switch-while-waiting' }, 'APPROVAL_REQUIRED', 409],
		[{ refused: 'message-not-in-any-branch' }, 'NOT_FOUND', 404],
		[{ refused: 'export-while-running' }, 'SESSION_IN_PROGRESS', 409],
		[{ refused: 'bundle-invalid', problem: 'p' }, 'BAD_REQUEST', 400],
		[{ refused: 'conversation-exists', conversationId: 'c' }, 'CONVERSATION_EXISTS', 409],
		[{ refused: 'runs-taken', runIds: ['r'] }, 'RUN_EXISTS', 409],
		[{ refused: 'unknown-provider', model: 'x/y', provider: 'x', configured: 'ollama' }, 'BAD_REQUEST', 400],
		[{ refused: 'model-not-served', model: 'ollama/y', provider: 'ollama', serves: 'qwen3' }, 'BAD_REQUEST', 400]
	];
	it.each(cases)('%o is %s (%i)', (refusal, code, status) => {
		const error = runRefusalError(refusal);
		expect([error.code, error.status]).toEqual([code, status]);
	});

	it('names the cap and the way to queue when the service is full', () => {
		expect(runRefusalError({ refused: 'full', maxConcurrentRuns: 3 }).message).toBe(
			'3 runs are running (MAX_CONCURRENT_RUNS): try again when one ends, or send the message with ifBusy "enqueue" to queue it on its conversation'
		);
	});

	it.each([
		[{ refused: 'queue-full', maxQueuedMessages: 2 }, 'This conversation already has 2 queued messages (MAX_QUEUED_MESSAGES): wait until they have run'],
		[{ refused: 'decision-invalid', toolCallId: 'c', why: 'remember-on-deny' }, '"remember" goes with "approve" or "edit" (call "c")'],
		[{ refused: 'decisions-missing', missing: ['a', 'b'] }, 'Decide every waiting call at once; missing: a, b'],
		[{ refused: 'runs-taken', runIds: ['r1', 'r2', 'r3'] }, 'Run r1 (and 2 more) of the bundle belongs to another conversation here: import it under new ids (without keepId)'],
		[{ refused: 'bundle-invalid', problem: 'runs.0.id: Required' }, 'Not an importable bundle: runs.0.id: Required'],
		[{ refused: 'unknown-provider', model: 'vllm/q', provider: 'vllm', configured: 'ollama' }, 'Unknown model "vllm/q": no provider "vllm" is configured (configured: ollama)']
	] as [Refusal, string][])('words %o from its fields', (refusal, message) => {
		expect(runRefusalError(refusal).message).toBe(message);
	});

	// The Agent Server protocol's words, as its routes answered before they were values.
	it.each([
		[{ refused: 'thread-not-found' }, 'NOT_FOUND', 404, 'Thread Not Found'],
		[{ refused: 'thread-not-found', threadId: 't1' }, 'NOT_FOUND', 404, 'Thread t1 not found'],
		[{ refused: 'thread-exists', threadId: 't1' }, 'THREAD_EXISTS', 409, 'Thread t1 already exists'],
		[{ refused: 'thread-delete-while-running' }, 'SESSION_IN_PROGRESS', 409, 'A run is active on this thread; wait for it to end'],
		[{ refused: 'checkpoint-not-found', threadId: 't1', checkpointId: 'c1' }, 'NOT_FOUND', 404, 'Checkpoint c1 not found in thread t1'],
		[{ refused: 'checkpoint-off-branch', checkpointId: 'c1' }, 'NOT_FOUND', 404, 'Checkpoint "c1" is not on the thread\'s active branch'],
		[{ refused: 'checkpoint-without-next', type: 'human' }, 'VALIDATION_FAILED', 422, 'Invalid field "checkpoint": the active branch shows no human message right after it'],
		[{ refused: 'checkpoint-without-next', type: 'ai' }, 'VALIDATION_FAILED', 422, 'Invalid field "checkpoint": the active branch shows no answer right after it'],
		[{ refused: 'thread-not-waiting' }, 'NOT_WAITING', 409, 'This thread is not waiting for a decision'],
		[{ refused: 'stale-interrupt', interruptId: 'i1' }, 'NOT_WAITING', 409, 'The interrupt "i1" is not the one this thread waits on'],
		[{ refused: 'decisions-miscounted', waiting: 2, given: 1 }, 'VALIDATION_FAILED', 422, 'Invalid field "command.resume.decisions": 2 calls wait, 1 decisions given'],
		[{ refused: 'rollback-held' }, 'SESSION_IN_PROGRESS', 409, 'The thread could not be rolled back: a run holds it']
	] as [Refusal, string, number, string][])('answers the protocol refusal %o as %s (%i)', (refusal, code, status, message) => {
		const error = runRefusalError(refusal);
		expect([error.code, error.status, error.message]).toEqual([code, status, message]);
	});

	it('passes a result through and throws a refusal', () => {
		expect(unlessRefused({ conversation: 'c', run: 'r' })).toEqual({ conversation: 'c', run: 'r' });
		expect(() => unlessRefused({ refused: 'busy' })).toThrow(expect.objectContaining({ code: 'SESSION_IN_PROGRESS' }));
	});
});
