// GET /api/chat for a run another instance executes: its kept events, served as a local run's are.

import { liveEventResponse, type FollowableLog, type LiveResponseOptions } from '../../stream/sse-response';
import { RemoteRunLog, type RemoteRunLogParts } from './remote-run-log.js';
import type { RemoteReaders } from './run-readers.js';

/**
 * The SSE response for `runId` read from PostgreSQL: the replay after `lastEventId`, then each
 * batch as it is announced, ended by the run's terminal event (or its successor's, after a
 * takeover resumed it), with the local response's ping, backlog limit and MAX_STREAMS_PER_RUN
 * (counted on this instance). The reader counts as one of the run's readers for its owner from
 * before the first read until it leaves; leaving before the run's end with `cancelOnLeave` asks
 * the owner to cancel it if none is left (run-readers.ts). Rejects when the first read fails.
 */
export async function remoteEventResponse(
	parts: RemoteRunLogParts & { readers: RemoteReaders },
	runId: string,
	lastEventId: number,
	signal: AbortSignal,
	options: LiveResponseOptions,
	cancelOnLeave = false
): Promise<Response> {
	const reader = await parts.readers.join(runId);
	let log: RemoteRunLog;
	try {
		log = await RemoteRunLog.open(parts, runId, lastEventId);
	} catch (error) {
		reader.leave(false);
		throw error;
	}
	let followed = false;
	const counted: FollowableLog = {
		get isEnded() {
			return log.isEnded;
		},
		get followers() {
			return log.followers;
		},
		follow(after, subscriber) {
			followed = true;
			const { missed, detach } = log.follow(after, subscriber);
			return {
				missed,
				detach: () => {
					// Read before detaching, which ends the log: whether the run's end came first.
					const early = !log.isEnded;
					detach();
					reader.leave(cancelOnLeave && early);
				}
			};
		}
	};
	// liveEventResponse follows the log before it returns, unless it refuses the reader.
	const response = liveEventResponse(counted, lastEventId, signal, options);
	log.releaseUnfollowed();
	if (!followed) reader.leave(false);
	return response;
}
