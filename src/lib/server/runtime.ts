import path from 'node:path';
import fs from 'node:fs';
import { ChatOllama } from '@langchain/ollama';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import type Database from 'better-sqlite3';
import type { Settings } from './settings';
import { openDatabase } from './db/database';
import { ConversationStore } from './db/conversation-store';
import { RunStore } from './db/run-store';
import { buildAgentGraph } from './agent/agent-graph';
import { classifyModelError } from './agent/model-errors';
import { readSystemPrompt } from './agent/system-prompt';
import { ThreadReader } from './agent/thread-reader';
import { loadMcpConfig } from './mcp/mcp-config';
import { Toolbox } from './mcp/toolbox';
import { RunService } from './runs/run-service';
import { checkReadiness, type Readiness } from './readiness';

export type Runtime = {
	settings: Settings;
	conversations: ConversationStore;
	runs: RunStore;
	threads: ThreadReader;
	runService: RunService;
	toolbox: Toolbox;
	deleteConversation: (id: string) => Promise<void>;
	readiness: () => Promise<Readiness>;
	/** Stops runs (each records its outcome), then closes MCP servers and the database. */
	close: () => Promise<void>;
};

const now = () => new Date().toISOString();

function logLine(line: string, error?: unknown): void {
	if (error === undefined) console.log(line);
	else console.error(line, error);
}

/**
 * The composition root: opens and migrates the database, recovers runs left by a dead process,
 * builds the graph and starts the MCP servers, in this order, once, before the port opens.
 */
export async function startRuntime(settings: Settings, env: Record<string, string | undefined>): Promise<Runtime> {
	const db: Database.Database = openDatabase(settings.paths.database);
	const checkpointer = new SqliteSaver(db);
	const conversations = new ConversationStore(db);
	const runs = new RunStore(db);

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

	const graph = buildAgentGraph({
		checkpointer,
		chatModel: () =>
			new ChatOllama({ baseUrl: settings.OLLAMA_HOST, model: settings.OLLAMA_MODEL, think: settings.OLLAMA_THINK }),
		tools: () => toolbox.tools(),
		systemPrompt: () => readSystemPrompt(path.join(settings.paths.configDir, 'system.md')),
		classifyModelError: (e) => classifyModelError(e, settings.OLLAMA_HOST, settings.OLLAMA_MODEL)
	});
	const threads = new ThreadReader(graph);

	const interrupted = runs.interruptAll(
		{ code: 'PROCESS_EXITED', message: 'The service stopped during this run; resume it to continue.' },
		now()
	);
	for (const id of interrupted) conversations.setMessageCount(id, (await threads.state(id)).messages.length);
	if (interrupted.length) logLine(`Recovery: ${interrupted.length} run(s) left running were marked interrupted`);

	await toolbox.start();

	const runService = new RunService({
		graph,
		threads,
		runs,
		conversations,
		recursionLimit: settings.AGENT_RECURSION_LIMIT,
		bufferLimit: settings.SSE_BUFFER_EVENTS,
		unavailableServers: () => toolbox.status().flatMap((s) => (s.state === 'up' ? [] : [s.name])),
		now,
		log: logLine
	});

	let closed: Promise<void> | null = null;
	return {
		settings,
		conversations,
		runs,
		threads,
		runService,
		toolbox,
		async deleteConversation(id) {
			conversations.delete(id);
			await checkpointer.deleteThread(id);
		},
		readiness: () =>
			checkReadiness({ db, ollamaHost: settings.OLLAMA_HOST, model: settings.OLLAMA_MODEL, mcp: toolbox.status() }),
		close() {
			closed ??= (async () => {
				try {
					await runService.stopAll();
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
