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
 * Run: npx tsx bench/step-overhead.ts [threads] [turnsPerThread]
 */
const THREADS = Number(process.argv[2] ?? 10);
const TURNS = Number(process.argv[3] ?? 10);

const dir = tempDir('sophos-bench-');
const log = path.join(dir, 'calls.log');
const server = { command: 'node', args: ['--import', 'tsx', 'test/support/mcp-test-server.ts'], env: { TEST_MCP_LOG: log } };
const ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));

let bareRuns = 0;

async function bare(): Promise<number[]> {
	const prefix = `run${bareRuns++}-`;
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
	const times: number[] = [];
	for (let t = 0; t < THREADS; t++) {
		for (let turn = 0; turn < TURNS; turn++) {
			const started = performance.now();
			const stream = await graph.stream(
				{ messages: [new HumanMessage(`turn ${turn}`)] },
				{ configurable: { thread_id: `${prefix}${t}` }, streamMode: 'messages', durability: 'sync' }
			);
			for await (const _ of stream);
			times.push(performance.now() - started);
		}
		const { values } = await graph.getState({ configurable: { thread_id: `${prefix}${t}` } });
		if (values.messages.length !== TURNS * 4) throw new Error(`bare thread ${prefix}${t} has ${values.messages.length} messages`);
	}
	await client.close();
	return times;
}

async function ours(): Promise<number[]> {
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
	const times: number[] = [];
	for (let t = 0; t < THREADS; t++) {
		let conversation: string | null = null;
		for (let turn = 0; turn < TURNS; turn++) {
			const started = performance.now();
			const result = await runtime.runService.start({ kind: 'message', conversation, message: `turn ${turn}` });
			conversation = result.conversation;
			await runtime.runService.registry.get(conversation)?.done;
			times.push(performance.now() - started);
		}
	}
	// A run that failed fast would look cheap: every one must have completed with its tool result.
	const summaries = runtime.conversations.list();
	const bad = summaries.filter((c) => c.status !== 'completed' || c.messageCount !== TURNS * 4);
	await runtime.close();
	if (bad.length) throw new Error(`${bad.length} conversations did not complete every turn: ${JSON.stringify(bad[0])}`);
	return times;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// Warm both paths once (module loading, JIT), then measure them in alternation and keep each
// one's best round, so load from elsewhere on the machine does not land on one side only.
const ROUNDS = 3;
await bare();
await ours();
let bareMs = Infinity;
let oursMs = Infinity;
for (let round = 0; round < ROUNDS; round++) {
	bareMs = Math.min(bareMs, median(await bare()));
	oursMs = Math.min(oursMs, median(await ours()));
}
await ollama.close();

console.log(`\nPer-turn cost, agent → tools → agent (3 graph steps), ${THREADS} threads × ${TURNS} turns, median, best of ${ROUNDS} alternating rounds`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`Reproduce: npx tsx bench/step-overhead.ts ${THREADS} ${TURNS}\n`);
console.log('| path | ms per turn | ms per step | ratio | goal |\n| --- | --- | --- | --- | --- |');
console.log(`| bare LangGraph + stock SqliteSaver + ToolNode | ${bareMs.toFixed(1)} | ${(bareMs / 3).toFixed(1)} | 1.00 | |`);
console.log(`| Sophos runtime (no HTTP) | ${oursMs.toFixed(1)} | ${(oursMs / 3).toFixed(1)} | ${(oursMs / bareMs).toFixed(2)} | ≤ 1.10 |`);
reportSummary('step-overhead', [
	{ figure: 'ms per turn (agent → tools → agent), in-process', ours: oursMs.toFixed(1), baseline: bareMs.toFixed(1), goal: '' },
	{
		figure: 'runtime cost per turn ÷ bare LangGraph',
		ours: (oursMs / bareMs).toFixed(2),
		baseline: '1.00',
		goal: '≤ 1.10',
		met: oursMs / bareMs <= 1.1
	}
]);
