import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { MultiServerMCPClient } from '@langchain/mcp-adapters';
import { ChatOllama } from '@langchain/ollama';
import { startRuntime } from '../src/lib/server/runtime';
import { parseSettings } from '../src/lib/server/settings';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { callsScript } from '../test/support/scripts';
import { tempDir } from '../test/support/service';
import { reportSummary } from './support/summary';

/**
 * The runtime's cost per turn (run ledger, journal, checkpoint store, event log, recovery-ready
 * bookkeeping) against bare LangGraph with the stock saver and a prebuilt ToolNode, in one process,
 * on the same scripted model server and the same MCP tool. A turn is agent → tools → agent.
 * The two take turns thread by thread, so load from elsewhere on the machine falls on both alike;
 * the figures are medians over every turn, wall time and this process's CPU time.
 * Run: npx tsx bench/step-overhead.ts [threads] [turnsPerThread]
 */
const THREADS = Number(process.argv[2] ?? 40);
const TURNS = Number(process.argv[3] ?? 10);
const WARMUP_THREADS = 5;

const dir = tempDir('sophos-bench-');
const log = path.join(dir, 'calls.log');
const server = { command: 'node', args: ['--import', 'tsx', 'test/support/mcp-test-server.ts'], env: { TEST_MCP_LOG: log } };
const ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));

type Turn = { wall: number; cpu: number };
type Side = { thread(n: number): Promise<Turn[]>; close(): Promise<void> };

async function timed(turn: () => Promise<void>): Promise<Turn> {
	const started = performance.now();
	const cpu = process.cpuUsage();
	await turn();
	const used = process.cpuUsage(cpu);
	return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
}

async function bare(): Promise<Side> {
	const client = new MultiServerMCPClient({ mcpServers: { test: { transport: 'stdio', ...server } }, prefixToolNameWithServerName: true });
	const tools = await client.getTools();
	const model = new ChatOllama({ baseUrl: ollama.url, model: 'qwen3', think: false }).bindTools(tools);
	const graph = new StateGraph(MessagesAnnotation)
		.addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
		.addNode('tools', new ToolNode(tools))
		.addEdge(START, 'agent')
		.addConditionalEdges('agent', (s) => ((s.messages.at(-1) as AIMessage).tool_calls?.length ? 'tools' : END), ['tools', END])
		.addEdge('tools', 'agent')
		.compile({ checkpointer: new SqliteSaver(new Database(path.join(dir, 'bare.db'))) });
	return {
		async thread(n) {
			const config = { configurable: { thread_id: `bare-${n}` } };
			const turns: Turn[] = [];
			for (let turn = 0; turn < TURNS; turn++) {
				turns.push(
					await timed(async () => {
						const stream = await graph.stream(
							{ messages: [new HumanMessage(`turn ${turn}`)] },
							{ ...config, streamMode: 'messages', durability: 'sync' }
						);
						for await (const _ of stream);
					})
				);
			}
			const { values } = await graph.getState(config);
			if (values.messages.length !== TURNS * 4) throw new Error(`bare thread ${n} has ${values.messages.length} messages`);
			return turns;
		},
		close: () => client.close()
	};
}

async function ours(): Promise<Side> {
	const configDir = path.join(dir, 'config');
	fs.mkdirSync(configDir, { recursive: true });
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ test: server }));
	fs.writeFileSync(path.join(configDir, 'system.md'), 'You are a benchmark.');
	const settings = parseSettings({
		OLLAMA_HOST: ollama.url,
		CONFIG_DIR: configDir,
		DATABASE_PATH: path.join(dir, 'ours.db'),
		MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl')
	});
	const runtime = await startRuntime(settings, { PATH: process.env.PATH });
	return {
		async thread() {
			let conversation: string | null = null;
			const turns: Turn[] = [];
			for (let turn = 0; turn < TURNS; turn++) {
				turns.push(
					await timed(async () => {
						const result = await runtime.runService.start({ kind: 'message', conversation, message: `turn ${turn}` });
						conversation = result.conversation;
						await runtime.runService.registry.get(conversation)?.done;
					})
				);
			}
			// A run that failed fast would look cheap: every one must have completed with its tool result.
			const summary = await runtime.storage.conversations.get(conversation!);
			if (summary?.status !== 'completed' || summary.messageCount !== TURNS * 4) {
				throw new Error(`a conversation did not complete every turn: ${JSON.stringify(summary)}`);
			}
			return turns;
		},
		close: () => runtime.close()
	};
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const sides = { bare: await bare(), ours: await ours() };
const measured: Record<keyof typeof sides, Turn[]> = { bare: [], ours: [] };
// Warm-up threads first (module loading, JIT), not counted; then alternate thread by thread.
for (let n = 0; n < WARMUP_THREADS + THREADS; n++) {
	for (const name of ['bare', 'ours'] as const) {
		const turns = await sides[name].thread(n);
		if (n >= WARMUP_THREADS) measured[name].push(...turns);
	}
}
await sides.bare.close();
await sides.ours.close();
await ollama.close();

const wall = { bare: median(measured.bare.map((t) => t.wall)), ours: median(measured.ours.map((t) => t.wall)) };
const cpu = { bare: median(measured.bare.map((t) => t.cpu)), ours: median(measured.ours.map((t) => t.cpu)) };
const ratio = wall.ours / wall.bare;

console.log(`\nPer-turn cost, agent → tools → agent (3 graph steps), ${THREADS} threads × ${TURNS} turns each side, alternating, median`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`Reproduce: npx tsx bench/step-overhead.ts ${THREADS} ${TURNS}\n`);
console.log('| path | ms per turn | CPU ms per turn | ratio (wall) | ratio (CPU) | goal |\n| --- | --- | --- | --- | --- | --- |');
console.log(`| bare LangGraph + stock SqliteSaver + ToolNode | ${wall.bare.toFixed(1)} | ${cpu.bare.toFixed(1)} | 1.00 | 1.00 | |`);
console.log(
	`| Sophos runtime (no HTTP) | ${wall.ours.toFixed(1)} | ${cpu.ours.toFixed(1)} | ${ratio.toFixed(2)} | ${(cpu.ours / cpu.bare).toFixed(2)} | ≤ 1.10 |`
);
reportSummary('step-overhead', [
	{ figure: 'ms per turn (agent → tools → agent), in-process', ours: wall.ours.toFixed(1), baseline: wall.bare.toFixed(1), goal: '' },
	{ figure: 'CPU ms per turn, in-process', ours: cpu.ours.toFixed(1), baseline: cpu.bare.toFixed(1), goal: '' },
	{ figure: 'runtime cost per turn ÷ bare LangGraph', ours: ratio.toFixed(2), baseline: '1.00', goal: '≤ 1.10', met: ratio <= 1.1 }
]);
