import { describe, expect, it } from 'vitest';
import { AlwaysOnSampler, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace';
import { MetricsRegistry } from '../../../src/lib/server/telemetry/metrics-registry';
import { RunTracer } from '../../../src/lib/server/telemetry/run-tracer';
import { attemptIds } from '../../../src/lib/server/telemetry/run-ids';
import { Telemetry } from '../../../src/lib/server/telemetry/telemetry';
import { attemptStart } from '../../../src/lib/server/runs/attempt-start';

const sources = { activeRuns: () => 0, waitingRuns: async () => 0, queuedMessages: async () => 0, mcpServers: () => [] };

function telemetry() {
	// Keeps what it was sent past shutdown (the SDK's in-memory exporter forgets it then).
	const finished: ReadableSpan[] = [];
	const exporter: SpanExporter & { finished: ReadableSpan[] } = {
		finished,
		export: (spans, done) => {
			finished.push(...spans);
			done({ code: 0 });
		},
		shutdown: async () => {}
	};
	const tracer = new RunTracer({ exporter, sampler: new AlwaysOnSampler(), batchDelayMs: 0, serviceName: 'sophos', instance: 'i' });
	const metrics = new MetricsRegistry(sources, { leases: true, pool: null });
	return { t: new Telemetry(metrics, tracer, null), exporter, metrics, tracer };
}

const run = (id: string, trigger: string) => ({ id, trigger, status: 'running', input: null, error: null, startedAt: '', finishedAt: null }) as never;

describe('Telemetry', () => {
	it('a run is counted once, by whoever recorded it; an attempt whose outcome was not recorded counts a fenced write instead', async () => {
		const { t, metrics } = telemetry();
		t.attempt({ runId: 'a', conversationId: 'c', trigger: 'message', continues: null }).end({ status: 'completed', recorded: true });
		t.attempt({ runId: 'b', conversationId: 'c', trigger: 'message', continues: null }).end({ status: 'interrupted', recorded: false, fenced: true });
		t.recovered('interrupted', 'message');
		const text = await metrics.exposition();
		expect(text).toContain('sophos_runs_total{status="completed",trigger="message"} 1');
		expect(text).toContain('sophos_runs_total{status="interrupted",trigger="message"} 1');
		expect(text).toContain('sophos_fenced_writes_refused_total 1');
		metrics.close();
	});

	it('an attempt that continues a run links to its span, whose ids come from the run id alone', async () => {
		const { t, exporter, tracer } = telemetry();
		const runs = [run('r2', 'auto-resume'), run('r1', 'message')];
		expect(attemptStart('r2', 'c', runs)).toEqual({ runId: 'r2', conversationId: 'c', trigger: 'auto-resume', continues: 'r1' });
		expect(attemptStart('r1', 'c', runs).continues).toBeNull();
		const attempt = t.attempt(attemptStart('r2', 'c', runs));
		t.tool('r2', { tool: 'm__peek', callId: 'k', server: 'm', transport: 'stdio', args: { secret: 'x' } }).end('reused');
		attempt.end({ status: 'completed', recorded: true });
		await tracer.close();
		const spans = exporter.finished;
		const agent = spans.find((s) => s.name === 'invoke_agent sophos')!;
		expect(agent.spanContext()).toMatchObject(attemptIds('r2'));
		expect(agent.links.map((l) => l.context)).toEqual([expect.objectContaining(attemptIds('r1'))]);
		const tool = spans.find((s) => s.name === 'execute_tool m__peek')!;
		expect(tool.parentSpanContext?.spanId).toBe(agent.spanContext().spanId);
		expect(tool.attributes).toMatchObject({ 'sophos.tool.outcome': 'reused', 'network.transport': 'pipe' });
		expect(JSON.stringify(tool.attributes)).not.toContain('secret');
	});

	it('an MCP call over Streamable HTTP carries its session on its execute_tool span; a stdio one has none', async () => {
		const { t, exporter, tracer } = telemetry();
		const attempt = t.attempt({ runId: 'r', conversationId: 'c', trigger: 'message', continues: null });
		t.tool('r', { tool: 'h__look', callId: 'k1', server: 'h', transport: 'streamable-http', session: 'session-1', args: {} }).end('success');
		t.tool('r', { tool: 'p__look', callId: 'k2', server: 'p', transport: 'stdio', args: {} }).end('success');
		attempt.end({ status: 'completed', recorded: true });
		await tracer.close();
		const attributes = (name: string) => exporter.finished.find((s) => s.name === name)!.attributes;
		expect(attributes('execute_tool h__look')).toMatchObject({ 'mcp.method.name': 'tools/call', 'mcp.session.id': 'session-1', 'network.transport': 'tcp' });
		expect(attributes('execute_tool p__look')).not.toHaveProperty('mcp.session.id');
	});

	it('a database figure that cannot be read is NaN in a scrape that still carries every other figure', async () => {
		const down = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
		const metrics = new MetricsRegistry({ ...sources, waitingRuns: down, queuedMessages: async () => 3 }, { leases: true, pool: null });
		metrics.leaseRenewalsFailed.inc();
		const text = await metrics.exposition();
		expect(text).toMatch(/^sophos_waiting_runs Nan$/m);
		expect(text).toMatch(/^sophos_queued_messages 3$/m);
		expect(text).toMatch(/^sophos_lease_renewals_failed_total 1$/m);
		metrics.close();
	});
});
