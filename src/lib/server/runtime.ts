import path from 'node:path';
import type { ConversationDetail, ConversationSummary, Readiness, RunEvent } from '../protocol';
import type { Settings } from './settings';
import { ApprovalExpiry } from './runs/approval-expiry';
import { ensurePrivateDir, restrictFile } from './private-files';
import { buildAgentGraph } from './agent/agent-graph';
import { readSystemPrompt } from './agent/system-prompt';
import { ThreadReader } from './runs/thread-reader';
import { createCrashInjector, crashBeforeCheckpoint } from './crash-points';
import { EventLoopShare } from './event-loop-share';
import { BranchReader } from './branches/branch-reader';
import { switchBranch } from './conversations/branch-switch';
import { findForkPoint } from './runs/fork-point';
import { conversationDetail } from './conversations/conversation-detail';
import { loadMcpConfig } from './mcp/mcp-config';
import { configuredProviders } from './models/configured-providers';
import { ModelCatalog } from './models/model-catalog';
import { loadModelsConfig } from './models/models-config';
import { Toolbox } from './mcp/toolbox';
import { runToolStep } from './tools/tool-step';
import { autoResume, type AutoResumeParts } from './runs/auto-resume';
import { carryOnFor } from './runs/carried-stream';
import { LeaseKeeper } from './runs/lease-keeper';
import { readThreadWork } from './runs/read-thread-work';
import { RunRegistry } from './runs/run-registry';
import { RunService } from './runs/run-service';
import { endRecoveredRuns, recoverRuns, type RecoveredRun } from './runs/run-recovery';
import { createThreadPruner } from './runs/thread-pruner';
import type { ThreadWork } from './runs/thread-work';
import { checkDatabase, checkReadiness, sharedCheck } from './readiness';
import type { AppStorage } from './storage/app-storage';
import { openStorageEngine } from './storage/engine';
import type { SharedRuns } from './storage/storage-engine';
import { randomUUID } from 'node:crypto';
import { createLog } from './telemetry/log-formatter';
import { traceExportOf } from './telemetry/otlp-settings';
import { startTelemetry } from './telemetry/start-telemetry';
import type { Telemetry } from './telemetry/telemetry';

export type Runtime = {
	settings: Settings;
	/** Conversations, runs, the queue, journals and branches, on the engine DATABASE_URL chose. */
	storage: AppStorage;
	threads: ThreadReader;
	runService: RunService;
	toolbox: Toolbox;
	models: ModelCatalog;
	branchReader: BranchReader;
	/** Runs other instances execute, followed from here (PostgreSQL); null on one process. */
	shared: SharedRuns | null;
	/** What is left to do on the conversation's thread (runs/thread-work.ts). */
	threadWork: (conversationId: string) => Promise<ThreadWork>;
	/** GET /api/conversations/:id (conversations/conversation-detail.ts). */
	detail: (conversation: ConversationSummary) => Promise<ConversationDetail>;
	/** Makes the branch holding the message active (conversations/branch-switch.ts). */
	switchBranch: (conversationId: string, messageId: string) => Promise<void>;
	readiness: () => Promise<Readiness>;
	/** A request's turn of the event loop when it is busy (see EventLoopShare); undefined: go on now. */
	turn: () => Promise<void> | undefined;
	/** The service's log, for what routes see happen (a slow SSE reader dropped). */
	log: (line: string, error?: unknown) => void;
	/** Metrics (GET /api/metrics) and, with an OTLP endpoint, traces. */
	telemetry: Telemetry;
	/** Drains runs (each records its outcome), then closes MCP servers and the database. */
	close: () => Promise<void>;
};

const now = () => new Date().toISOString();

/** What no log line may hold: the secret settings, and the password inside DATABASE_URL. */
function secretsOf(settings: Settings): string[] {
	const headers = [settings.OTEL_EXPORTER_OTLP_HEADERS, settings.OTEL_EXPORTER_OTLP_TRACES_HEADERS].flatMap((h) => Object.values(h ?? {}));
	const url = settings.DATABASE_URL;
	const password = url ? decodeURIComponent(new URL(url).password) : '';
	return [settings.SOPHOS_TOKEN, settings.OPENAI_API_KEY, url, password, ...headers].filter((s): s is string => !!s);
}

/**
 * The composition root: opens and migrates the database, recovers runs left by a dead process,
 * builds the graph, starts the MCP servers and restarts what may be restarted, in this order, once,
 * before the port opens. It only wires: each decision lives in the module named beside it.
 */
export async function startRuntime(settings: Settings, env: Record<string, string | undefined>): Promise<Runtime> {
	const crash = createCrashInjector(settings.SOPHOS_CRASH_AT);
	const instance = settings.SOPHOS_INSTANCE_ID ?? randomUUID();
	let telemetry: Telemetry | undefined;
	const logLine = createLog({ format: settings.LOG_FORMAT, instance, secrets: secretsOf(settings), scope: () => telemetry?.logScope() ?? {} });
	const engine = await openStorageEngine(
		{ ...settings, SOPHOS_INSTANCE_ID: instance },
		{ maxConcurrentRuns: settings.MAX_CONCURRENT_RUNS, maxQueuedMessages: settings.MAX_QUEUED_MESSAGES },
		logLine
	);
	const { storage } = engine;
	logLine(`Storage: ${engine.where}`);
	const checkpointer = crashBeforeCheckpoint(engine.checkpointer, crash);
	const registry = new RunRegistry();

	ensurePrivateDir(path.dirname(settings.paths.memoryFile));
	restrictFile(settings.paths.memoryFile);
	const mcpConfig = await loadMcpConfig(path.join(settings.paths.configDir, 'mcp.json'), {
		...env,
		MEMORY_FILE_PATH: settings.paths.memoryFile
	});
	const toolbox = new Toolbox(mcpConfig, {
		toolTimeoutMs: settings.MCP_TOOL_TIMEOUT_MS,
		maxResultChars: settings.TOOL_RESULT_MAX_CHARS,
		allow: settings.MCP_TOOLS_ALLOW,
		deny: settings.MCP_TOOLS_DENY,
		approval: settings.TOOL_APPROVAL,
		log: logLine
	});

	telemetry = startTelemetry({
		traces: traceExportOf(settings),
		sampler: settings.OTEL_TRACES_SAMPLER,
		samplerRatio: settings.OTEL_TRACES_SAMPLER_ARG,
		batchDelayMs: settings.OTEL_BSP_SCHEDULE_DELAY,
		serviceName: settings.OTEL_SERVICE_NAME,
		captureContent: settings.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT,
		instance,
		leases: engine.leases !== null,
		sources: {
			activeRuns: () => registry.all().length,
			waitingRuns: () => storage.runs.countWaiting(),
			queuedMessages: () => storage.queue.countAll(),
			mcpServers: () => toolbox.status()
		}
	});
	const observed = telemetry;

	// One for every run, so concurrent runs share each turn of the event loop.
	const loop = new EventLoopShare();
	const endpoints = await loadModelsConfig(path.join(settings.paths.configDir, 'models.json'), env);
	const models = new ModelCatalog(configuredProviders(settings, endpoints, loop.fetch), settings.defaultModel, observed);
	const graph = buildAgentGraph({
		checkpointer,
		model: async (config) => {
			const conversation = String(config.configurable?.thread_id);
			const chosen = (await storage.conversations.model(conversation)) ?? models.defaultModel;
			return models.step(chosen, String(config.configurable?.run_id), config.signal);
		},
		tools: () => toolbox.definitions(),
		runTools: (messages, config) =>
			runToolStep(messages, config, {
				toolbox,
				storage,
				policy: settings.UNFINISHED_TOOL_CALLS,
				guard: settings.EXFILTRATION_GUARD,
				approvalTimeoutMs: settings.APPROVAL_TIMEOUT_MS,
				maxCallsPerStep: settings.MAX_TOOL_CALLS_PER_STEP,
				crash,
				now,
				telemetry: observed
			}),
		turn: () => loop.turn(),
		systemPrompt: () => readSystemPrompt(path.join(settings.paths.configDir, 'system.md'))
	});
	const threads = new ThreadReader(graph, checkpointer, {
		stored: (id) => storage.branches.head(id),
		latest: (id) => engine.history.latestId(id)
	});
	const branchReader = new BranchReader({ history: engine.history, checkpointer, branches: storage.branches });

	// With leases, only runs whose owner's lease has ended: other instances' live runs are theirs.
	const orphans = engine.leases ? await engine.leases.takeOverAtStart() : await storage.runs.listRunning();
	if (engine.leases) observed.metrics.takenOver.inc(orphans.length);
	const recovered = await recoverRuns({ threads, storage, now, telemetry: observed }, orphans);
	const interrupted = recovered.filter((run) => run.unfinished).length;
	if (interrupted) logLine(`Recovery: ${interrupted} run(s) left running were marked interrupted`);

	await toolbox.start();

	const prune = createThreadPruner({
		threads,
		storage,
		registry,
		retention: settings.CHECKPOINT_RETENTION,
		history: engine.history
	});
	let expiry: ApprovalExpiry | undefined;
	const runService = new RunService({
		graph,
		threads,
		storage,
		registry,
		shared: engine.shared,
		forkPoint: (id, target) => findForkPoint({ graph, threads, branchReader }, id, target),
		carryOn: carryOnFor(engine.shared, storage.runs),
		recursionLimit: settings.AGENT_RECURSION_LIMIT,
		bufferLimit: settings.SSE_BUFFER_EVENTS,
		maxConcurrentRuns: settings.MAX_CONCURRENT_RUNS,
		unavailableServers: () => toolbox.status().flatMap((s) => (s.state === 'up' ? [] : [s.name])),
		afterRun: async (conversationId) => {
			await expiry?.schedule();
			await prune(conversationId);
		},
		turn: () => loop.turn(),
		crash,
		now,
		log: logLine,
		telemetry: observed
	});

	const resumeParts: AutoResumeParts = { runService, threads, storage, toolbox, max: settings.AUTO_RESUME_MAX, log: logLine };
	const shared = engine.shared;
	const endParts = {
		resume: settings.AUTO_RESUME ? (run: RecoveredRun) => autoResume(run, resumeParts) : null,
		ended: shared && ((runId: string, event: RunEvent) => shared.ended(runId, event))
	};
	await endRecoveredRuns(recovered, endParts);
	const keeper =
		engine.leases &&
		new LeaseKeeper({
			leases: engine.leases,
			registry,
			leaseMs: settings.RUN_LEASE_MS,
			log: logLine,
			telemetry: observed,
			async recover(taken) {
				await endRecoveredRuns(await recoverRuns({ threads, storage, now, telemetry: observed }, taken), endParts);
				await runService.startWaiting();
			}
		});
	keeper?.start();
	expiry = new ApprovalExpiry({ approvals: storage.approvals, runService, now, log: logLine });
	await expiry.schedule();
	runService.startWaiting().catch((e) => logLine('Starting queued messages failed', e));

	let closed: Promise<void> | null = null;
	return {
		settings,
		storage,
		threads,
		runService,
		toolbox,
		models,
		branchReader,
		shared: engine.shared,
		threadWork: (id) => readThreadWork({ threads, storage }, id),
		detail: (conversation) => conversationDetail({ threads, storage, branchReader }, conversation),
		switchBranch: (id, messageId) =>
			switchBranch(
				{
					branchReader,
					branches: storage.branches,
					runs: storage.runs,
					approvals: storage.approvals,
					writtenAt: async (threadId, checkpointId) =>
						(await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_id: checkpointId } }))?.checkpoint.ts
				},
				id,
				messageId
			),
		turn: () => loop.turn(),
		log: logLine,
		telemetry: observed,
		readiness: sharedCheck(
			async () =>
				checkReadiness({
					database: await checkDatabase(() => engine.ping()),
					models: await models.readiness(),
					defaultModel: models.defaultModel,
					mcp: toolbox.status()
				}),
			settings.READINESS_CACHE_MS
		),
		close() {
			closed ??= (async () => {
				try {
					expiry?.close();
					keeper?.stopTakingOver();
					await runService.stopAll(settings.SHUTDOWN_DRAIN_MS);
					await keeper?.stop();
				} finally {
					try {
						await toolbox.close();
					} finally {
						try {
							await engine.close();
						} finally {
							await observed.close();
						}
					}
				}
			})();
			return closed;
		}
	};
}
