import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { callsScript } from '../test/support/scripts';
import { tempDir } from '../test/support/service';
import { reportSummary } from './support/summary';
import { alternate, bareSide, median, sophosSide } from './support/turn-sides';

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
const ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));

const sides = {
	bare: await bareSide({ ollamaUrl: ollama.url, log, saver: new SqliteSaver(new Database(path.join(dir, 'bare.db'))), turns: TURNS }),
	ours: await sophosSide({ ollamaUrl: ollama.url, log, dir, turns: TURNS })
};
const measured = await alternate(sides, THREADS, WARMUP_THREADS);
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
