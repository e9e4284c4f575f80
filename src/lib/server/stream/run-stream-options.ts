import type { Log } from '../telemetry/log-formatter';
import type { Telemetry } from '../telemetry/telemetry';
import type { LiveResponseOptions } from './sse-response';

/** The settings a run's live SSE responses follow (settings.ts reads them). */
export type RunStreamSettings = { MAX_STREAMS_PER_RUN: number; SSE_READER_BACKLOG_BYTES: number };

/**
 * How every live response of a run treats its readers, on Sophos's API and the protocol's alike:
 * MAX_STREAMS_PER_RUN of them, each dropped past SSE_READER_BACKLOG_BYTES unread (counted and
 * logged; it may reconnect), each counted while open.
 */
export function runStreamOptions(
	settings: RunStreamSettings,
	telemetry: Pick<Telemetry, 'metrics' | 'sseStreamOpened'>,
	log: Log
): (runId: string) => LiveResponseOptions {
	return (runId) => ({
		maxFollowers: settings.MAX_STREAMS_PER_RUN,
		backlogLimitBytes: settings.SSE_READER_BACKLOG_BYTES,
		onDrop: (e) => {
			telemetry.metrics.sseDropped.inc();
			log(`Run ${runId}: dropped a slow SSE reader (${e.message}); it may reconnect with Last-Event-ID`);
		},
		opened: () => telemetry.sseStreamOpened()
	});
}
