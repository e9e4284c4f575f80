import Database from 'better-sqlite3';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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
 * Sophos runs twice: as it ships (metrics kept, tracing off), and with tracing on, exporting every
 * span over OTLP/HTTP to a sink on loopback that reads and drops them (so what is measured is the
 * spans' making, batching, encoding and sending, not a collector's work).
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

const sink = http.createServer((req, res) => req.resume().on('end', () => res.end()));
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
const tracedDir = path.join(dir, 'traced');

const sides = {
	bare: await bareSide({ ollamaUrl: ollama.url, log, saver: new SqliteSaver(new Database(path.join(dir, 'bare.db'))), turns: TURNS }),
	ours: await sophosSide({ ollamaUrl: ollama.url, log, dir, turns: TURNS }),
	traced: await sophosSide({ ollamaUrl: ollama.url, log, dir: tracedDir, turns: TURNS, env: { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } })
};
const measured = await alternate(sides, THREADS, WARMUP_THREADS);
await sides.bare.close();
await sides.ours.close();
await sides.traced.close();
await ollama.close();
sink.close();

const wall = { bare: median(measured.bare.map((t) => t.wall)), ours: median(measured.ours.map((t) => t.wall)) };
const cpu = { bare: median(measured.bare.map((t) => t.cpu)), ours: median(measured.ours.map((t) => t.cpu)) };
const ratio = wall.ours / wall.bare;
const traced = { wall: median(measured.traced.map((t) => t.wall)), cpu: median(measured.traced.map((t) => t.cpu)) };

console.log(`\nPer-turn cost, agent → tools → agent (3 graph steps), ${THREADS} threads × ${TURNS} turns each side, alternating, median`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`Reproduce: npx tsx bench/step-overhead.ts ${THREADS} ${TURNS}\n`);
console.log('| path | ms per turn | CPU ms per turn | ratio (wall) | ratio (CPU) | goal |\n| --- | --- | --- | --- | --- | --- |');
console.log(`| bare LangGraph + stock SqliteSaver + ToolNode | ${wall.bare.toFixed(1)} | ${cpu.bare.toFixed(1)} | 1.00 | 1.00 | |`);
console.log(
	`| Sophos runtime (no HTTP), metrics on, tracing off | ${wall.ours.toFixed(1)} | ${cpu.ours.toFixed(1)} | ${ratio.toFixed(2)} | ${(cpu.ours / cpu.bare).toFixed(2)} | ≤ 1.10 |`
);
console.log(
	`| Sophos runtime, tracing on (OTLP/HTTP protobuf) | ${traced.wall.toFixed(1)} | ${traced.cpu.toFixed(1)} | ${(traced.wall / wall.bare).toFixed(2)} | ${(traced.cpu / cpu.bare).toFixed(2)} | |`
);
console.log(
	`\nTracing adds ${(traced.wall - wall.ours).toFixed(2)} ms wall and ${(traced.cpu - cpu.ours).toFixed(2)} ms CPU per turn (4 spans: invoke_agent, 2 chat, execute_tool).`
);
reportSummary('step-overhead', [
	{ figure: 'ms per turn (agent → tools → agent), in-process', ours: wall.ours.toFixed(1), baseline: wall.bare.toFixed(1), goal: '' },
	{ figure: 'CPU ms per turn, in-process', ours: cpu.ours.toFixed(1), baseline: cpu.bare.toFixed(1), goal: '' },
	{ figure: 'runtime cost per turn ÷ bare LangGraph', ours: ratio.toFixed(2), baseline: '1.00', goal: '≤ 1.10', met: ratio <= 1.1 },
	{ figure: 'ms per turn with tracing on', ours: traced.wall.toFixed(1), baseline: wall.ours.toFixed(1), goal: '' }
]);
