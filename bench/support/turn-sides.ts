// What bench/step-overhead.ts and bench/postgres-turns.ts time: one turn (agent → tools → agent,
// three graph steps) of bare LangGraph with a stock saver and a prebuilt ToolNode, or of the Sophos
// runtime in process, on the same scripted model server and the same MCP tool.

import fs from 'node:fs';
import path from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOllama } from '@langchain/ollama';
import { startRuntime } from '../../src/lib/server/runtime';
import { parseSettings } from '../../src/lib/server/settings';

export type Turn = { wall: number; cpu: number };
export type Side = { thread(n: number): Promise<Turn[]>; close(): Promise<void> };

/** The MCP test server both sides call, journalling into `log`. */
export const testServer = (log: string) => ({
	command: 'node',
	args: ['--import', 'tsx', 'test/support/mcp-test-server.ts'],
	env: { TEST_MCP_LOG: log }
});

export async function timed(turn: () => Promise<void>): Promise<Turn> {
	const started = performance.now();
	const cpu = process.cpuUsage();
	await turn();
	const used = process.cpuUsage(cpu);
	return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function bareSide(options: { ollamaUrl: string; log: string; saver: BaseCheckpointSaver; turns: number; close?: () => Promise<void> }): Promise<Side> {
	const client = new MultiServerMCPClient({
		mcpServers: { test: { transport: 'stdio', ...testServer(options.log) } },
		prefixToolNameWithServerName: true
	});
	const tools = await client.getTools();
	const model = new ChatOllama({ baseUrl: options.ollamaUrl, model: 'qwen3', think: false }).bindTools(tools);
	const graph = new StateGraph(MessagesAnnotation)
		.addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
		.addNode('tools', new ToolNode(tools))
		.addEdge(START, 'agent')
		.addConditionalEdges('agent', (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END), ['tools', END])
		.addEdge('tools', 'agent')
		.compile({ checkpointer: options.saver });
	return {
		async thread(n) {
			const config = { configurable: { thread_id: `bare-${n}` } };
			const turns: Turn[] = [];
			for (let turn = 0; turn < options.turns; turn++) {
				turns.push(
					await timed(async () => {
						const stream = await graph.stream({ messages: [new HumanMessage(`turn ${turn}`)] }, { ...config, streamMode: 'messages', durability: 'sync' });
						for await (const _ of stream);
					})
				);
			}
			const { values } = await graph.getState(config);
			if (values.messages.length !== options.turns * 4) throw new Error(`bare thread ${n} has ${values.messages.length} messages`);
			return turns;
		},
		async close() {
			await client.close();
			await options.close?.();
		}
	};
}

/** The runtime in process; `env` adds settings (DATABASE_URL for PostgreSQL). */
export async function sophosSide(options: { ollamaUrl: string; log: string; dir: string; turns: number; env?: Record<string, string> }): Promise<Side> {
	const configDir = path.join(options.dir, 'config');
	fs.mkdirSync(configDir, { recursive: true });
	// Ours, so its read-only annotation is believed and its peek runs without asking (mcp.json `trusted`).
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ test: { ...testServer(options.log), trusted: true } }));
	fs.writeFileSync(path.join(configDir, 'system.md'), 'You are a benchmark.');
	const settings = parseSettings({
		OLLAMA_HOST: options.ollamaUrl,
		CONFIG_DIR: configDir,
		DATABASE_PATH: path.join(options.dir, 'ours.db'),
		MEMORY_FILE_PATH: path.join(options.dir, 'memory.jsonl'),
		...options.env
	});
	const runtime = await startRuntime(settings, { PATH: process.env.PATH });
	return {
		async thread() {
			let conversation: string | null = null;
			const turns: Turn[] = [];
			for (let turn = 0; turn < options.turns; turn++) {
				turns.push(
					await timed(async () => {
						const result = await runtime.runService.start({ kind: 'message', conversation, message: `turn ${turn}` });
						if ('refused' in result) throw new Error(`turn ${turn} refused: ${result.refused}`);
						conversation = result.conversation;
						await runtime.runService.registry.get(conversation)?.done;
					})
				);
			}
			// A run that failed fast would look cheap: every one must have completed with its tool result.
			const summary = await runtime.storage.conversations.get(conversation!);
			if (summary?.status !== 'completed' || summary.messageCount !== options.turns * 4) {
				throw new Error(`a conversation did not complete every turn: ${JSON.stringify(summary)}`);
			}
			return turns;
		},
		close: () => runtime.close()
	};
}

/**
 * Warm-up threads first (module loading, JIT), not counted; then the sides take turns thread by
 * thread. `onWarm` is called once warm-up is over.
 */
export async function alternate<K extends string>(
	sides: Record<K, Side>,
	threads: number,
	warmup: number,
	onWarm?: () => void
): Promise<Record<K, Turn[]>> {
	const names = Object.keys(sides) as K[];
	const measured = Object.fromEntries(names.map((n) => [n, [] as Turn[]])) as Record<K, Turn[]>;
	for (let n = 0; n < warmup + threads; n++) {
		if (n === warmup) onWarm?.();
		for (const name of names) {
			const turns = await sides[name].thread(n);
			if (n >= warmup) measured[name].push(...turns);
		}
	}
	return measured;
}
