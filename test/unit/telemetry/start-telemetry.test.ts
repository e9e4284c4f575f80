import { describe, expect, it } from 'vitest';
import { LogScopeSource, startServiceTelemetry, type TelemetrySettings } from '../../../src/lib/server/telemetry/start-telemetry';

const settings: TelemetrySettings = {
	OTEL_EXPORTER_OTLP_TIMEOUT: 10_000,
	OTEL_TRACES_SAMPLER: 'always_on',
	OTEL_BSP_SCHEDULE_DELAY: 0,
	OTEL_SERVICE_NAME: 'sophos',
	OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: false
};

const sources = { activeRuns: () => 0, waitingRuns: async () => 0, queuedMessages: async () => 0, mcpServers: () => [] };

describe('LogScopeSource', () => {
	it('gives no scope before telemetry starts, then the run a line is written in', async () => {
		const logScope = new LogScopeSource();
		expect(logScope.scope()).toEqual({});
		const telemetry = startServiceTelemetry(settings, { instance: 'i', leases: false, pool: null, sources, redact: (t) => t, logScope });
		try {
			const attempt = telemetry.attempt({ runId: 'r', conversationId: 'c', trigger: 'message', continues: null });
			const inside = await attempt.within(async () => logScope.scope());
			attempt.end({ status: 'completed', recorded: true });
			expect(inside).toEqual({ run: 'r', conversation: 'c' });
			expect(logScope.scope()).toEqual({});
		} finally {
			await telemetry.close();
		}
	});
});
