// GET /api/chat for a run another instance executes: its kept events, served as a local run's are.

import { liveEventResponse, type LiveResponseOptions } from '../../stream/sse-response';
import { RemoteRunLog, type RemoteRunLogParts } from './remote-run-log.js';

/**
 * The SSE response for `runId` read from PostgreSQL: the replay after `lastEventId`, then each
 * batch as it is announced, ended by the run's terminal event (or its successor's, after a
 * takeover resumed it), with the local response's ping, backlog limit and MAX_STREAMS_PER_RUN
 * (counted on this instance). Rejects when the first read fails.
 */
export async function remoteEventResponse(
	parts: RemoteRunLogParts,
	runId: string,
	lastEventId: number,
	signal: AbortSignal,
	options: LiveResponseOptions
): Promise<Response> {
	const log = await RemoteRunLog.open(parts, runId, lastEventId);
	// liveEventResponse follows the log before it returns, unless it refuses the reader.
	const response = liveEventResponse(log, lastEventId, signal, options);
	log.releaseUnfollowed();
	return response;
}
