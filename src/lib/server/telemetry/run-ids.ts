import { createHash } from 'node:crypto';
import { RandomIdGenerator, type IdGenerator } from '@opentelemetry/sdk-trace';

/**
 * Pure. The trace and span ids of a run attempt's invoke_agent span, derived from the run's id:
 * an attempt that resumes a run another process was executing when it died links to that run's
 * span without anything being stored, since the ids can be computed again from the run id alone.
 */
export function attemptIds(runId: string): { traceId: string; spanId: string } {
	const hex = createHash('sha256').update(`sophos-run:${runId}`).digest('hex');
	return { traceId: hex.slice(0, 32), spanId: hex.slice(32, 48) };
}

/**
 * Random ids, except for the one span started inside `withIds`: the SDK asks its IdGenerator for
 * a root span's ids synchronously within startSpan, and offers no other way to choose them.
 */
export class AttemptIdGenerator implements IdGenerator {
	private readonly random = new RandomIdGenerator();
	private next: { traceId: string; spanId: string } | null = null;

	withIds<T>(ids: { traceId: string; spanId: string }, start: () => T): T {
		this.next = ids;
		try {
			return start();
		} finally {
			this.next = null;
		}
	}

	generateTraceId(): string {
		return this.next?.traceId ?? this.random.generateTraceId();
	}

	generateSpanId(): string {
		return this.next?.spanId ?? this.random.generateSpanId();
	}
}
