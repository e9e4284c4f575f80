import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { registerPoolMetrics, type PoolUse } from './pool-metrics';

/**
 * What the registry reads at each scrape rather than counting: figures another part already holds.
 * The database's figures (waiting runs, queued messages) are the whole database's, the same on
 * every instance of a fleet; the rest are this process's. A figure that cannot be read (the
 * database down) is reported as NaN, so the scrape still carries every other one, the lease
 * heartbeat's failures among them.
 */
export type MetricSources = {
	activeRuns: () => number;
	waitingRuns: () => Promise<number>;
	queuedMessages: () => Promise<number>;
	mcpServers: () => readonly { name: string; state: string; restarts: number }[];
};

export type ToolOutcomeLabel = 'success' | 'error' | 'cancelled' | 'unknown' | 'reused' | 'denied';

/** Seconds: a model's first token to its whole answer, a tool call, a run attempt, a request. */
const MODEL_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const RUN_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The service's Prometheus metrics, `sophos_*`, in one prom-client registry with the process's own
 * (`process_*`, `nodejs_*`). Labels are of low cardinality only: statuses, triggers, providers,
 * models, tools, servers and route patterns, never a conversation or run id.
 */
export class MetricsRegistry {
	readonly registry = new Registry();
	private readonly loopDelay: IntervalHistogram = monitorEventLoopDelay({ resolution: 20 });
	private readonly stopPoolWaits: () => void;

	readonly runs = new Counter({
		name: 'sophos_runs_total',
		help: 'Run outcomes recorded, once each: by the executor, or by the recovery of a run whose owner died.',
		labelNames: ['status', 'trigger'] as const,
		registers: [this.registry]
	});
	readonly runDuration = new Histogram({
		name: 'sophos_run_duration_seconds',
		help: 'Time of one run attempt, from its start to its recorded outcome.',
		labelNames: ['status'] as const,
		buckets: RUN_BUCKETS,
		registers: [this.registry]
	});
	readonly modelRequests = new Counter({
		name: 'sophos_model_requests_total',
		help: 'Model calls, by outcome (success or the error code).',
		labelNames: ['provider', 'model', 'outcome'] as const,
		registers: [this.registry]
	});
	readonly modelTokens = new Counter({
		name: 'sophos_model_tokens_total',
		help: 'Tokens the model calls used, as their providers reported them.',
		labelNames: ['provider', 'model', 'direction'] as const,
		registers: [this.registry]
	});
	readonly modelFirstToken = new Histogram({
		name: 'sophos_model_first_token_seconds',
		help: 'From a model request to its first token of reasoning, text or a tool call.',
		labelNames: ['provider', 'model'] as const,
		buckets: MODEL_BUCKETS,
		registers: [this.registry]
	});
	readonly modelDuration = new Histogram({
		name: 'sophos_model_request_duration_seconds',
		help: 'Time of a whole model call.',
		labelNames: ['provider', 'model'] as const,
		buckets: MODEL_BUCKETS,
		registers: [this.registry]
	});
	readonly toolCalls = new Counter({
		name: 'sophos_tool_calls_total',
		help: 'Tool calls by their journal outcome; a reused or denied call is counted so, not executed.',
		labelNames: ['tool', 'outcome'] as const,
		registers: [this.registry]
	});
	readonly toolDuration = new Histogram({
		name: 'sophos_tool_call_duration_seconds',
		help: 'Time of a tool call, its journal writes included.',
		labelNames: ['tool'] as const,
		buckets: MODEL_BUCKETS,
		registers: [this.registry]
	});
	readonly approvals = new Counter({
		name: 'sophos_approvals_total',
		help: 'Decisions on tool calls that waited for a person.',
		labelNames: ['decision'] as const,
		registers: [this.registry]
	});
	readonly sseStreams = new Gauge({
		name: 'sophos_sse_streams',
		help: 'SSE responses following a live run now.',
		registers: [this.registry]
	});
	readonly sseDropped = new Counter({
		name: 'sophos_sse_readers_dropped_total',
		help: 'SSE readers dropped for falling behind SSE_READER_BACKLOG_BYTES.',
		registers: [this.registry]
	});
	readonly httpRequests = new Counter({
		name: 'sophos_http_requests_total',
		help: 'HTTP requests answered, by route pattern and status.',
		labelNames: ['route', 'status'] as const,
		registers: [this.registry]
	});
	readonly httpDuration = new Histogram({
		name: 'sophos_http_request_duration_seconds',
		help: 'Time to a response’s headers (an SSE stream’s life is not in it).',
		labelNames: ['route'] as const,
		buckets: HTTP_BUCKETS,
		registers: [this.registry]
	});
	/** Only on a shared database (PostgreSQL), where runs have leases. */
	readonly takenOver = new Counter({
		name: 'sophos_runs_taken_over_total',
		help: 'Runs this instance took over from an owner whose lease ended.',
		registers: []
	});
	readonly leaseRenewalsFailed = new Counter({ name: 'sophos_lease_renewals_failed_total', help: 'Lease heartbeats that failed.', registers: [] });
	readonly fencedWrites = new Counter({
		name: 'sophos_fenced_writes_refused_total',
		help: 'Writes of a run refused because another instance had taken it over.',
		registers: []
	});

	/** `leases`: a shared database, whose lease counters are reported; `pool`: its connection pool's figures (PostgreSQL). */
	constructor(sources: MetricSources, options: { leases: boolean; pool: PoolUse | null }) {
		const registers = [this.registry];
		// First: a scrape reads the metrics in the order they were registered, so the pool's figures
		// are read before the gauges below send their queries through it.
		this.stopPoolWaits = options.pool ? registerPoolMetrics(this.registry, options.pool) : () => {};
		const loopDelay = this.loopDelay;
		loopDelay.enable();
		new Gauge({
			name: 'sophos_active_runs',
			help: 'Runs this instance executes now.',
			registers,
			collect() {
				this.set(sources.activeRuns());
			}
		});
		new Gauge({
			name: 'sophos_waiting_runs',
			help: 'Conversations whose last run waits for a person’s decision (the whole database).',
			registers,
			async collect() {
				this.set(await sources.waitingRuns().catch(() => NaN));
			}
		});
		new Gauge({
			name: 'sophos_queued_messages',
			help: 'Messages queued behind a conversation’s run (the whole database).',
			registers,
			async collect() {
				this.set(await sources.queuedMessages().catch(() => NaN));
			}
		});
		new Gauge({
			name: 'sophos_mcp_server_up',
			help: '1 when the MCP server is connected, else 0.',
			labelNames: ['server'] as const,
			registers,
			collect() {
				for (const s of sources.mcpServers()) this.set({ server: s.name }, s.state === 'up' ? 1 : 0);
			}
		});
		new Counter({
			name: 'sophos_mcp_server_restarts_total',
			help: 'Restarts of the MCP server since this process started.',
			labelNames: ['server'] as const,
			registers,
			collect() {
				// The supervisor keeps the count; a counter's value is only ever the one it reports.
				this.reset();
				for (const s of sources.mcpServers()) this.inc({ server: s.name }, s.restarts);
			}
		});
		new Gauge({
			name: 'sophos_event_loop_lag_seconds',
			help: 'The 99th percentile of event loop delay since the previous scrape.',
			registers,
			collect() {
				const p99 = loopDelay.percentile(99);
				this.set(Number.isFinite(p99) ? p99 / 1e9 : 0);
				loopDelay.reset();
			}
		});
		if (options.leases) for (const m of [this.takenOver, this.leaseRenewalsFailed, this.fencedWrites]) this.registry.registerMetric(m);
		collectDefaultMetrics({ register: this.registry });
		// prom-client also reports these three gauges under a `_total` name, which Prometheus keeps
		// for counters (promtool refuses them); the same figures stay as nodejs_active_handles etc.
		for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) {
			this.registry.removeSingleMetric(name);
		}
	}

	get contentType(): string {
		return this.registry.contentType;
	}

	/** The text exposition of every metric, as GET /api/metrics answers it. */
	exposition(): Promise<string> {
		return this.registry.metrics();
	}

	close(): void {
		this.loopDelay.disable();
		this.stopPoolWaits();
	}
}
