import path from 'node:path';
import fs from 'node:fs';
import type { Settings } from './settings';
import { openDatabase } from './db/database';
import { commitDurably } from './db/durable-commit';
import { ConversationStore } from './db/conversation-store';
import { MessageQueue } from './db/message-queue';
import { RunStore } from './db/run-store';
import { buildAgentGraph } from './agent/agent-graph';
import { readSystemPrompt } from './agent/system-prompt';
import { ThreadReader } from './agent/thread-reader';
import { createCrashInjector, crashBeforeCheckpoint } from './crash-points';
import { EventLoopShare } from './event-loop-share';
import { DeltaSqliteSaver, migrateCheckpointStore, pruneThreadCheckpoints } from './checkpoint';
import { loadMcpConfig } from './mcp/mcp-config';
import { configuredProviders } from './models/configured-providers';
import { ModelCatalog } from './models/model-catalog';
import { loadModelsConfig } from './models/models-config';
import { Toolbox } from './mcp/toolbox';
import { ToolJournal } from './tools/tool-journal';
import { runToolStep } from './tools/tool-step';
import { RunRegistry } from './runs/active-run';
import { danglingToolCalls } from './runs/dangling-tool-calls';
import { shouldAutoResume } from './runs/auto-resume';
import { RunService } from './runs/run-service';
import { recoverRuns } from './runs/run-recovery';
import { checkReadiness, type Readiness } from './readiness';

export type Runtime = {
	settings: Settings;
	conversations: ConversationStore;
	runs: RunStore;
	queue: MessageQueue;
	threads: ThreadReader;
	runService: RunService;
	toolbox: Toolbox;
	models: ModelCatalog;
	deleteConversation: (id: string) => void;
	readiness: () => Promise<Readiness>;
	/** A request's turn of the event loop when it is busy (see EventLoopShare); undefined: go on now. */
	turn: () => Promise<void> | undefined;
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
 * before the port opens.
 */
export async function startRuntime(settings: Settings, env: Record<string, string | undefined>): Promise<Runtime> {
	const crash = createCrashInjector(settings.SOPHOS_CRASH_AT);
	const db = openDatabase(settings.paths.database);
	const imported = migrateCheckpointStore(db);
	if (imported.importedCheckpoints) {
		logLine(
			`Checkpoints: imported ${imported.importedCheckpoints} checkpoints and ${imported.importedWrites} writes ` +
				'from the stock SQLite saver into the delta store (run VACUUM once to give the old space back)'
		);
	}
	const saver = new DeltaSqliteSaver(db);
	const checkpointer = crashBeforeCheckpoint(saver, crash);
	const conversations = new ConversationStore(db);
	const runs = new RunStore(db);
	const queue = new MessageQueue(db);
	const journal = new ToolJournal(db);
	const registry = new RunRegistry();

	fs.mkdirSync(path.dirname(settings.paths.memoryFile), { recursive: true });
	const mcpConfig = await loadMcpConfig(path.join(settings.paths.configDir, 'mcp.json'), {
		...env,
		MEMORY_FILE_PATH: settings.paths.memoryFile
	});
	const toolbox = new Toolbox(mcpConfig, {
		toolTimeoutMs: settings.MCP_TOOL_TIMEOUT_MS,
		maxResultChars: settings.TOOL_RESULT_MAX_CHARS,
		allow: settings.MCP_TOOLS_ALLOW,
		deny: settings.MCP_TOOLS_DENY,
		log: logLine
	});

	// One for every run, so concurrent runs share each turn of the event loop.
	const loop = new EventLoopShare();
	const endpoints = await loadModelsConfig(path.join(settings.paths.configDir, 'models.json'), env);
	const models = new ModelCatalog(configuredProviders(settings, endpoints, loop.fetch), settings.defaultModel);
	let runService!: RunService;
	const graph = buildAgentGraph({
		checkpointer,
		model: (config) => {
			const conversation = String(config.configurable?.thread_id);
			return models.step(conversations.model(conversation) ?? models.defaultModel, String(config.configurable?.run_id));
		},
		tools: () => toolbox.definitions(),
		runTools: (messages, config) =>
			runToolStep(messages, config, { toolbox, journal, policy: settings.UNFINISHED_TOOL_CALLS, crash, now }),
		beginStep: async (config) => {
			const wait = loop.turn();
			if (wait) await wait;
			runService.checkStop(config);
		},
		systemPrompt: () => readSystemPrompt(path.join(settings.paths.configDir, 'system.md'))
	});
	const threads = new ThreadReader(graph, checkpointer);

	const interrupted = await recoverRuns({ runs, conversations, threads, now });
	if (interrupted.length) logLine(`Recovery: ${interrupted.length} run(s) left running were marked interrupted`);

	await toolbox.start();

	runService = new RunService({
		graph,
		threads,
		runs,
		conversations,
		queue,
		registry,
		recursionLimit: settings.AGENT_RECURSION_LIMIT,
		bufferLimit: settings.SSE_BUFFER_EVENTS,
		unavailableServers: () => toolbox.status().flatMap((s) => (s.state === 'up' ? [] : [s.name])),
		onRunSettled: async (conversationId) => {
			const retention = settings.CHECKPOINT_RETENTION;
			if (retention.kind !== 'latest') return;
			// Only a finished thread: a resumable one needs its pending step's checkpoint and writes.
			const { pending, lostInput } = await runService.pendingWork(conversationId);
			if (pending.length === 0 && !lostInput && !registry.get(conversationId)) {
				const pruned = pruneThreadCheckpoints(db, conversationId, retention.keep);
				if (pruned.deletedCheckpoints) db.pragma('incremental_vacuum');
			}
		},
		turn: () => loop.turn(),
		crash,
		now,
		log: logLine
	});

	if (settings.AUTO_RESUME) await autoResume(interrupted);
	for (const id of queue.conversationsWaiting()) runService.startQueued(id);

	async function autoResume(ids: string[]): Promise<void> {
		const started: string[] = [];
		for (const id of ids) {
			const open = danglingToolCalls(await threads.messages(id));
			const { pending, lostInput } = await runService.pendingWork(id);
			const resume = shouldAutoResume({
				pending: lostInput ? ['agent'] : pending,
				openCalls: open.map((c) => ({
					recorded: journal.get(id, c.id)?.outcome != null,
					safeToRepeat: toolbox.resolve(c.name)?.safeToRepeat ?? false
				})),
				recentTriggers: runs.list(id).map((r) => r.trigger),
				max: settings.AUTO_RESUME_MAX
			});
			if (!resume) continue;
			try {
				await runService.start({ kind: 'resume', conversation: id, trigger: 'auto-resume' });
				started.push(id);
			} catch (e) {
				// One thread that cannot be resumed must not keep the service from starting.
				logLine(`Auto-resume of ${id} failed; it stays interrupted`, e);
			}
		}
		if (started.length) logLine(`Auto-resume: resumed ${started.length} interrupted run(s)`);
	}

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
		deleteConversation(id) {
			// One durable transaction: a crash cannot leave a deleted conversation's checkpoints behind,
			// and a power cut cannot bring deleted messages back.
			commitDurably(db, () => {
				conversations.delete(id);
				saver.deleteThreadSync(id);
			});
		},
		turn: () => loop.turn(),
		readiness: async () => checkReadiness({ db, models: await models.readiness(), defaultModel: models.defaultModel, mcp: toolbox.status() }),
		close() {
			closed ??= (async () => {
				try {
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
