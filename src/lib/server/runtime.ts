import path from 'node:path';
import type { ConversationDetail, ConversationSummary, Readiness } from '../protocol';
import type { Settings } from './settings';
import { ApprovalExpiry } from './approvals/approval-expiry';
import { openDatabase } from './db/database';
import { ensurePrivateDir, restrictFile } from './private-files';
import { commitDurably } from './db/durable-commit';
import { deleteConversation } from './db/conversation-deletion';
import { ConversationStore } from './db/conversation-store';
import { MessageQueue } from './db/message-queue';
import { RunStore } from './db/run-store';
import { buildAgentGraph } from './agent/agent-graph';
import { readSystemPrompt } from './agent/system-prompt';
import { ThreadReader } from './agent/thread-reader';
import { createCrashInjector, crashBeforeCheckpoint } from './crash-points';
import { EventLoopShare } from './event-loop-share';
import { DeltaSqliteSaver, latestCheckpointId } from './checkpoint';
import { BranchReader } from './branches/branch-reader';
import { switchBranch } from './branches/branch-switch';
import { findForkPoint } from './branches/fork-point';
import { conversationDetail } from './conversation-detail';
import { BranchStore } from './db/branch-store';
import { loadMcpConfig } from './mcp/mcp-config';
import { configuredProviders } from './models/configured-providers';
import { ModelCatalog } from './models/model-catalog';
import { loadModelsConfig } from './models/models-config';
import { Toolbox } from './mcp/toolbox';
import { AllowedTools } from './tools/allowed-tools';
import { ApprovalJournal } from './tools/approval-journal';
import { ToolJournal } from './tools/tool-journal';
import { runToolStep } from './tools/tool-step';
import { autoResume } from './runs/auto-resume';
import { readThreadWork } from './runs/read-thread-work';
import { RunRegistry } from './runs/run-registry';
import { RunService } from './runs/run-service';
import { recoverRuns } from './runs/run-recovery';
import { createThreadPruner } from './runs/thread-pruner';
import type { ThreadWork } from './runs/thread-work';
import { checkReadiness, sharedCheck } from './readiness';

export type Runtime = {
	settings: Settings;
	conversations: ConversationStore;
	runs: RunStore;
	queue: MessageQueue;
	threads: ThreadReader;
	runService: RunService;
	toolbox: Toolbox;
	models: ModelCatalog;
	approvals: ApprovalJournal;
	allowedTools: AllowedTools;
	branches: BranchStore;
	branchReader: BranchReader;
	/** What is left to do on the conversation's thread (runs/thread-work.ts). */
	threadWork: (conversationId: string) => Promise<ThreadWork>;
	/** GET /api/conversations/:id (conversation-detail.ts). */
	detail: (conversation: ConversationSummary) => Promise<ConversationDetail>;
	/** Makes the branch holding the message active (branches/branch-switch.ts). */
	switchBranch: (conversationId: string, messageId: string) => Promise<void>;
	/** Refuses while a run holds the conversation (db/conversation-deletion.ts). */
	deleteConversation: (id: string) => void;
	readiness: () => Promise<Readiness>;
	/** A request's turn of the event loop when it is busy (see EventLoopShare); undefined: go on now. */
	turn: () => Promise<void> | undefined;
	/** The service's log, for what routes see happen (a slow SSE reader dropped). */
	log: (line: string, error?: unknown) => void;
	/** Drains runs (each records its outcome), then closes MCP servers and the database. */
	close: () => Promise<void>;
};

const now = () => new Date().toISOString();

function logLine(line: string, error?: unknown): void {
	if (error === undefined) console.log(line);
	else console.error(line, error);
}

/**
 * The composition root: opens and migrates the database, recovers runs left by a dead process,
 * builds the graph, starts the MCP servers and restarts what may be restarted, in this order, once,
 * before the port opens. It only wires: each decision lives in the module named beside it.
 */
export async function startRuntime(settings: Settings, env: Record<string, string | undefined>): Promise<Runtime> {
	const crash = createCrashInjector(settings.SOPHOS_CRASH_AT);
	const db = openDatabase(settings.paths.database, logLine);
	const branches = new BranchStore(db);
	const saver = new DeltaSqliteSaver(db, {
		onPut: ({ threadId, ns, checkpointId, parentId }) => {
			if (ns === '' && parentId !== undefined) branches.advance(threadId, parentId, checkpointId);
		}
	});
	const checkpointer = crashBeforeCheckpoint(saver, crash);
	const conversations = new ConversationStore(db);
	const runs = new RunStore(db);
	const queue = new MessageQueue(db, settings.MAX_QUEUED_MESSAGES);
	const journal = new ToolJournal(db);
	const approvals = new ApprovalJournal(db);
	const allowedTools = new AllowedTools(db);
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

	// One for every run, so concurrent runs share each turn of the event loop.
	const loop = new EventLoopShare();
	const endpoints = await loadModelsConfig(path.join(settings.paths.configDir, 'models.json'), env);
	const models = new ModelCatalog(configuredProviders(settings, endpoints, loop.fetch), settings.defaultModel);
	const graph = buildAgentGraph({
		checkpointer,
		model: (config) => {
			const conversation = String(config.configurable?.thread_id);
			return models.step(conversations.model(conversation) ?? models.defaultModel, String(config.configurable?.run_id), config.signal);
		},
		tools: () => toolbox.definitions(),
		runTools: (messages, config) =>
			runToolStep(messages, config, {
				toolbox,
				journal,
				approvals,
				allowed: allowedTools,
				policy: settings.UNFINISHED_TOOL_CALLS,
				guard: settings.EXFILTRATION_GUARD,
				approvalTimeoutMs: settings.APPROVAL_TIMEOUT_MS,
				maxCallsPerStep: settings.MAX_TOOL_CALLS_PER_STEP,
				crash,
				now
			}),
		turn: () => loop.turn(),
		systemPrompt: () => readSystemPrompt(path.join(settings.paths.configDir, 'system.md'))
	});
	const threads = new ThreadReader(graph, checkpointer, {
		stored: (id) => branches.head(id),
		latest: (id) => latestCheckpointId(db, id)
	});
	const branchReader = new BranchReader({ db, checkpointer, branches });

	const interrupted = await recoverRuns({ runs, threads, approvals, branches, now });
	if (interrupted.length) logLine(`Recovery: ${interrupted.length} run(s) left running were marked interrupted`);

	await toolbox.start();

	const prune = createThreadPruner({ db, threads, runs, approvals, branches, registry, retention: settings.CHECKPOINT_RETENTION });
	let expiry: ApprovalExpiry | undefined;
	const runService = new RunService({
		graph,
		threads,
		runs,
		approvals,
		allowed: allowedTools,
		durably: (fn) => commitDurably(db, fn),
		conversations,
		queue,
		registry,
		branches,
		forkPoint: (id, target) => findForkPoint({ graph, threads, branchReader }, id, target),
		recursionLimit: settings.AGENT_RECURSION_LIMIT,
		bufferLimit: settings.SSE_BUFFER_EVENTS,
		maxConcurrentRuns: settings.MAX_CONCURRENT_RUNS,
		unavailableServers: () => toolbox.status().flatMap((s) => (s.state === 'up' ? [] : [s.name])),
		afterRun: async (conversationId) => {
			expiry?.schedule();
			await prune(conversationId);
		},
		turn: () => loop.turn(),
		crash,
		now,
		log: logLine
	});

	if (settings.AUTO_RESUME) {
		await autoResume(interrupted, {
			runService,
			threads,
			runs,
			journal,
			approvals,
			branches,
			toolbox,
			max: settings.AUTO_RESUME_MAX,
			log: logLine
		});
	}
	expiry = new ApprovalExpiry({ approvals, runService, now, log: logLine });
	expiry.schedule();
	runService.startWaiting().catch((e) => logLine('Starting queued messages failed', e));

	let closed: Promise<void> | null = null;
	return {
		settings,
		conversations,
		runs,
		queue,
		threads,
		runService,
		toolbox,
		models,
		approvals,
		allowedTools,
		branches,
		branchReader,
		threadWork: (id) => readThreadWork({ threads, runs, approvals, branches }, id),
		detail: (conversation) => conversationDetail({ threads, runs, approvals, branches, queue, branchReader }, conversation),
		switchBranch: (id, messageId) =>
			switchBranch(
				{
					branchReader,
					branches,
					conversations,
					runs,
					approvals,
					writtenAt: async (threadId, checkpointId) =>
						(await checkpointer.getTuple({ configurable: { thread_id: threadId, checkpoint_id: checkpointId } }))?.checkpoint.ts
				},
				id,
				messageId
			),
		deleteConversation: (id) => deleteConversation({ db, conversations, runs, saver, log: logLine }, id),
		turn: () => loop.turn(),
		log: logLine,
		readiness: sharedCheck(
			async () => checkReadiness({ db, models: await models.readiness(), defaultModel: models.defaultModel, mcp: toolbox.status() }),
			settings.READINESS_CACHE_MS
		),
		close() {
			closed ??= (async () => {
				try {
					expiry?.close();
					await runService.stopAll(settings.SHUTDOWN_DRAIN_MS);
				} finally {
					try {
						await toolbox.close();
					} finally {
						db.close();
					}
				}
			})();
			return closed;
		}
	};
}
