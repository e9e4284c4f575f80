import path from 'node:path';
import type { ElicitationAnswer, Readiness } from '../protocol';
import type { Settings } from './settings';
import { ApprovalExpiry } from './runs/approval-expiry';
import { Elicitations } from './elicitation/elicitations';
import { answerElicitation } from './elicitation/answer-elicitation';
import { pendingElicitations } from './elicitation/pending-elicitations';
import { buildAgentGraph } from './agent/agent-graph';
import { readSystemPrompt } from './agent/system-prompt';
import { ThreadReader } from './runs/thread-reader';
import { createCrashInjector, crashBeforeCheckpoint } from './crash-points';
import { EventLoopShare } from './event-loop-share';
import { BranchReader } from './branches/branch-reader';
import { findForkPoint } from './runs/fork-point';
import { ConversationService } from './conversations/conversation-service';
import { createAgentProtocol, type AgentProtocol } from './agent-protocol/agent-protocol';
import { ConversationBundles } from './conversations/conversation-bundles';
import { configuredProviders } from './models/configured-providers';
import { ModelCatalog } from './models/model-catalog';
import { conversationModel } from './models/conversation-model';
import { Toolbox } from './mcp/toolbox';
import { McpPrompts } from './mcp/prompts';
import { McpResources } from './mcp/resources';
import { McpSignIn } from './mcp/oauth/mcp-sign-in';
import { ServerOAuth } from './mcp/oauth/server-oauth';
import { runToolStep } from './tools/tool-step';
import { carryOnFor } from './runs/carried-stream';
import { readThreadWork } from './runs/read-thread-work';
import { RunRegistry } from './runs/run-registry';
import { RunService } from './runs/run-service';
import { ProtocolRuns } from './agent-protocol/protocol-runs';
import { keepRecovering, recoverAtStart } from './runs/orphan-recovery';
import { createThreadPruner } from './runs/thread-pruner';
import type { ThreadWork } from './runs/thread-work';
import { serviceReadiness } from './readiness';
import type { AppStorage } from './storage/app-storage';
import type { ForwardedAnswer } from './storage/storage-engine';
import { openStorageEngine } from './storage/engine';
import { configuredSecrets } from './secrets/configured-secrets';
import { redactor } from './secrets/redactor';
import { randomUUID } from 'node:crypto';
import { createChildLog, createLog, routeProcessOutput } from './telemetry/log-formatter';
import { LogScopeSource, startServiceTelemetry } from './telemetry/start-telemetry';
import { runStreamOptions } from './stream/run-stream-options';
import type { Telemetry } from './telemetry/telemetry';
import { runtimeClose } from './runtime-close';
import { readRuntimeConfig } from './runtime-config';

export type Runtime = {
	settings: Settings;
	/** Conversations, runs, the queue, journals and branches, on the engine DATABASE_URL chose. */
	storage: AppStorage;
	threads: ThreadReader;
	/** The live run: starting, following and cancelling runs (runs/run-service.ts). */
	runService: RunService;
	/** Runs of the LangGraph Agent Server protocol, over runService (agent-protocol/protocol-runs.ts). */
	protocolRuns: ProtocolRuns;
	/** Detail, runs, branch switch, exports and deletion of a conversation (conversations/conversation-service.ts). */
	conversations: ConversationService;
	/** Assistants, threads and their states for LangGraph's SDK (agent-protocol/agent-protocol.ts). */
	agentProtocol: AgentProtocol;
	/** A conversation exported whole and imported (conversations/conversation-bundles.ts). */
	bundles: ConversationBundles;
	toolbox: Toolbox;
	/** OAuth sign-in, callback and sign-out of remote MCP servers (mcp/oauth/mcp-sign-in.ts). */
	mcpSignIn: McpSignIn;
	/** Every MCP server's prompts, and a prompt's messages (mcp/prompts.ts). */
	prompts: McpPrompts;
	/** Every MCP server's resources, a text resource read, and a message's attachments (mcp/resources.ts). */
	resources: McpResources;
	/** An answer to a question a tool server asks during a call, on whichever instance runs it (elicitation/answer-elicitation.ts). */
	answerElicitation: (runId: string, id: string, answer: ElicitationAnswer) => Promise<ForwardedAnswer>;
	models: ModelCatalog;
	/** What is left to do on the conversation's thread (runs/thread-work.ts). */
	threadWork: (conversationId: string) => Promise<ThreadWork>;
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

/**
 * The composition root: opens and migrates the database, recovers runs left by a dead process,
 * builds the graph, starts the MCP servers and restarts what may be restarted, in this order, once,
 * before the port opens. It only wires: each decision lives in the module named beside it.
 */
export async function startRuntime(settings: Settings, env: Record<string, string | undefined>): Promise<Runtime> {
	redactor.add(...configuredSecrets({ settings: env }));
	const crash = createCrashInjector(settings.SOPHOS_CRASH_AT);
	const instance = settings.SOPHOS_INSTANCE_ID ?? randomUUID();
	const logScope = new LogScopeSource();
	const logOptions = { format: settings.LOG_FORMAT, instance, redact: (text: string) => redactor.redact(text), scope: logScope.scope };
	const logLine = createLog(logOptions);
	routeProcessOutput(logOptions);
	const engine = await openStorageEngine(
		{ ...settings, SOPHOS_INSTANCE_ID: instance },
		{ maxConcurrentRuns: settings.MAX_CONCURRENT_RUNS, maxQueuedMessages: settings.MAX_QUEUED_MESSAGES },
		logLine
	);
	const { storage } = engine;
	logLine(`Storage: ${engine.where}`);
	const checkpointer = crashBeforeCheckpoint(engine.checkpointer, crash);
	const registry = new RunRegistry();
	const elicitations = new Elicitations({
		timeoutMs: settings.ELICITATION_TIMEOUT_MS,
		now,
		publish: (runId, event) => registry.getById(runId)?.log.publish(event),
		log: logLine
	});

	const { endpoints, mcpConfig } = await readRuntimeConfig(settings, env);
	const toolbox = new Toolbox(mcpConfig, {
		toolTimeoutMs: settings.MCP_TOOL_TIMEOUT_MS,
		maxResultChars: settings.TOOL_RESULT_MAX_CHARS,
		allow: settings.MCP_TOOLS_ALLOW,
		deny: settings.MCP_TOOLS_DENY,
		approval: settings.TOOL_APPROVAL,
		oauth: (name, c) => new ServerOAuth({ server: name, url: c.url, settings: c.oauth, storage: storage.mcpAuth, log: logLine }),
		log: logLine,
		childLog: createChildLog(logOptions)
	});

	const observed = startServiceTelemetry(settings, {
		redact: (text) => redactor.redactSecrets(text),
		instance,
		leases: engine.leases !== null,
		pool: engine.pool,
		logScope,
		sources: {
			activeRuns: () => registry.all().length,
			waitingRuns: () => storage.runs.countWaiting(),
			queuedMessages: () => storage.queue.countAll(),
			mcpServers: () => toolbox.status()
		}
	});

	// One for every run, so concurrent runs share each turn of the event loop.
	const loop = new EventLoopShare();
	const models = new ModelCatalog(configuredProviders(settings, endpoints, loop.fetch), settings.defaultModel, observed);
	const graph = buildAgentGraph({
		checkpointer,
		model: conversationModel(models, storage.conversations),
		tools: () => toolbox.definitions(),
		runTools: (messages, config) =>
			runToolStep(messages, config, {
				toolbox,
				storage,
				policy: settings.UNFINISHED_TOOL_CALLS,
				guard: settings.EXFILTRATION_GUARD,
				untrustedWrites: settings.UNTRUSTED_CONTENT_WRITES,
				approvalTimeoutMs: settings.APPROVAL_TIMEOUT_MS,
				maxCallsPerStep: settings.MAX_TOOL_CALLS_PER_STEP,
				crash,
				now,
				telemetry: observed,
				elicitations,
				unconfirmed: (runId) => registry.getById(runId)?.unconfirmed
			}),
		turn: () => loop.turn(),
		systemPrompt: () => readSystemPrompt(path.join(settings.paths.configDir, 'system.md')),
		maxAnswerChars: settings.MAX_ANSWER_CHARS
	});
	const threads = new ThreadReader(graph, checkpointer, {
		stored: (id) => storage.branches.head(id),
		latest: (id) => engine.history.latestId(id)
	});
	const branchReader = new BranchReader({ history: engine.history, checkpointer, branches: storage.branches });

	const recovered = await recoverAtStart({ threads, storage, leases: engine.leases, now, telemetry: observed, log: logLine });

	await toolbox.start();

	const runService = new RunService({
		graph,
		threads,
		storage,
		registry,
		shared: engine.shared,
		elicitations,
		forkPoint: (id, target) => findForkPoint({ graph, threads, branchReader }, id, target),
		carryOn: carryOnFor(engine.shared, storage.runs),
		recursionLimit: settings.AGENT_RECURSION_LIMIT,
		bufferLimit: settings.SSE_BUFFER_EVENTS,
		maxConcurrentRuns: settings.MAX_CONCURRENT_RUNS,
		unavailableServers: () => toolbox.unavailable(),
		turn: () => loop.turn(),
		crash,
		now,
		log: logLine,
		telemetry: observed
	});

	const expiry = new ApprovalExpiry({ approvals: storage.approvals, runService, now, log: logLine });
	const prune = createThreadPruner({ threads, storage, runs: runService, retention: settings.CHECKPOINT_RETENTION, history: engine.history });
	runService.afterEachRun(async (conversationId) => {
		await expiry.schedule();
		await prune(conversationId);
	});

	const keeper = await keepRecovering(recovered, {
		runService,
		threads,
		storage,
		toolbox,
		registry,
		leases: engine.leases,
		shared: engine.shared,
		autoResume: settings.AUTO_RESUME,
		max: settings.AUTO_RESUME_MAX,
		leaseMs: settings.RUN_LEASE_MS,
		now,
		log: logLine,
		telemetry: observed
	});
	await expiry.schedule();
	runService.startWaiting().catch((e) => logLine('Starting queued messages failed', e));

	return {
		settings,
		storage,
		threads,
		runService,
		protocolRuns: new ProtocolRuns({
			runService,
			storage,
			threads,
			branchReader,
			models,
			streamOptions: runStreamOptions(settings, observed, logLine),
			log: logLine
		}),
		conversations: new ConversationService({
			threads,
			storage,
			branchReader,
			checkpointer,
			elicitations: (conversation) =>
				pendingElicitations({ elicitations, runsHere: (id) => registry.get(id) !== undefined, shared: engine.shared, runs: storage.runs }, conversation)
		}),
		agentProtocol: createAgentProtocol({
			graph,
			threads,
			approvals: storage.approvals,
			history: engine.history,
			storage,
			now
		}),
		bundles: new ConversationBundles({ transfer: storage.transfer, checkpointer: engine.checkpointer, redactor }),
		toolbox,
		mcpSignIn: new McpSignIn(toolbox),
		prompts: new McpPrompts(toolbox.all(), { maxChars: settings.MCP_CONTENT_MAX_CHARS, timeoutMs: settings.MCP_TOOL_TIMEOUT_MS }),
		resources: new McpResources(toolbox.all(), { maxChars: settings.MCP_CONTENT_MAX_CHARS, timeoutMs: settings.MCP_TOOL_TIMEOUT_MS }),
		answerElicitation: (runId, id, answer) =>
			answerElicitation({ elicitations, runsHere: (run) => registry.getById(run) !== undefined, shared: engine.shared }, runId, id, answer),
		models,
		threadWork: (id) => readThreadWork({ threads, storage }, id),
		turn: () => loop.turn(),
		log: logLine,
		telemetry: observed,
		readiness: serviceReadiness({ ping: () => engine.ping(), models, mcp: () => toolbox.status() }, settings.READINESS_CACHE_MS),
		close: runtimeClose({ expiry, keeper, runService, toolbox, engine, telemetry: observed, drainMs: settings.SHUTDOWN_DRAIN_MS })
	};
}
