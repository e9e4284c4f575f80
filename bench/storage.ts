// Checkpoint storage benchmark: database bytes and turn latency as a thread grows, for the stock
// SqliteSaver, our DeltaSqliteSaver, and an in-memory reference that keeps the last checkpoint
// object without serialising anything (LangGraph's own cost per turn, the floor for any saver).
//
//   npx tsx bench/storage.ts [turn counts…] [--stock-budget=<seconds>] [--repeat=<runs>]
//
// The stock saver grows quadratically; it stops before a turn count whose predicted run time
// would take it past its budget, and the table shows an estimate for the counts it skipped.
// Each saver runs --repeat times (default 2), interleaved, each run in its own process; a turn
// time is the median of a run's last 10 turns, and the table keeps the lowest of the runs, which
// filters out other load on the machine (timings on a shared 2-core box vary by 2× run to run).
// The process CPU time per turn is shown too: it excludes waiting for the disk and other processes.

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import { BaseCheckpointSaver, type Checkpoint, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { DeltaSqliteSaver } from '../src/lib/server/checkpoint/index.js';
import { migrate } from '../src/lib/server/db/migrations.js';
import {
	TOOL_RESULT_BYTES,
	buildAgentGraph,
	humanTurn,
	messageTextBytes
} from '../test/unit/checkpoint-agent-graph.js';
import { reportSummary, type SummaryRow } from './support/summary.js';

const args = process.argv.slice(2);
const turnCounts = args.filter((a) => /^\d+$/.test(a)).map(Number).sort((a, b) => a - b);
if (turnCounts.length === 0) turnCounts.push(10, 50, 200, 1000);
const budgetArg = args.find((a) => a.startsWith('--stock-budget='));
const stockBudgetMs = 1000 * (budgetArg ? Number(budgetArg.split('=')[1]) : 120);
const repeatArg = args.find((a) => a.startsWith('--repeat='));
const repeat = repeatArg ? Math.max(1, Number(repeatArg.split('=')[1])) : 2;
const WINDOW = 10; // ms/turn is the median of the last WINDOW turns before each count
// Short threads on a throwaway store first, so early counts are not charged for JIT warm-up
// (V8 is still compiling after 40 turns); short, so the stock saver's warm-up stays cheap.
const WARMUP_THREADS = 20;

/** Keeps the last checkpoint object in memory: what a turn costs before any saver work. */
class ReferenceSaver extends BaseCheckpointSaver {
	private last?: CheckpointTuple;
	async getTuple(): Promise<CheckpointTuple | undefined> {
		if (this.last === undefined) return undefined;
		const { checkpoint } = this.last;
		return { ...this.last, checkpoint: { ...checkpoint, channel_values: { ...checkpoint.channel_values } } };
	}
	async *list(): AsyncGenerator<CheckpointTuple> {}
	async put(config: RunnableConfig, checkpoint: Checkpoint, metadata: CheckpointTuple['metadata']) {
		const threadId = config.configurable?.thread_id;
		const saved = { configurable: { thread_id: threadId, checkpoint_ns: '', checkpoint_id: checkpoint.id } };
		this.last = { config: saved, checkpoint, metadata, pendingWrites: [] };
		return saved;
	}
	async putWrites(): Promise<void> {}
	async deleteThread(): Promise<void> {}
}

type Kind = 'stock SqliteSaver' | 'DeltaSqliteSaver' | 'in-memory reference';
interface Row {
	kind: Kind;
	turns: number;
	messages: number;
	textBytes: number;
	dbBytes?: number;
	/** The file before the first turn: tables and indexes, one page each at least. */
	emptyBytes?: number;
	msPerTurn: number;
	cpuMsPerTurn: number;
	/** Set when the count was not run and the numbers are extrapolated. */
	estimatedSeconds?: number;
}

function open(kind: Kind, dir: string, name: string) {
	if (kind === 'in-memory reference') return { saver: new ReferenceSaver(), bytes: () => undefined, close() {} };
	const file = join(dir, `${name}.sqlite`);
	const db = new Database(file);
	db.pragma('journal_mode = WAL');
	db.pragma('synchronous = NORMAL');
	let saver: BaseCheckpointSaver;
	if (kind === 'stock SqliteSaver') saver = new SqliteSaver(db);
	else {
		migrate(db);
		saver = new DeltaSqliteSaver(db);
	}
	const bytes = () => {
		db.pragma('wal_checkpoint(TRUNCATE)');
		return statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
	};
	return { saver, bytes, close: () => db.close() };
}

const median = (values: number[]) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function measure(kind: Kind, budgetMs: number): Promise<Row[]> {
	const dir = mkdtempSync(join(os.tmpdir(), 'sophos-bench-'));
	try {
		const warm = open(kind, dir, 'warmup');
		const warmGraph = buildAgentGraph(warm.saver);
		for (let thread = 0; thread < WARMUP_THREADS; thread += 1) {
			const warmConfig = { configurable: { thread_id: `warmup-${thread}` } };
			for (let turn = 0; turn < WINDOW; turn += 1) await warmGraph.invoke(humanTurn(turn), warmConfig);
		}
		warm.close();

		const store = open(kind, dir, 'bench');
		const emptyBytes = store.bytes();
		const graph = buildAgentGraph(store.saver);
		const config = { configurable: { thread_id: randomUUID() } };
		const times: number[] = [];
		const cpuTimes: number[] = [];
		const rows: Row[] = [];
		let spentMs = 0;
		for (const target of turnCounts) {
			const skipped = predictSkip(rows, target, times.length, budgetMs - spentMs);
			if (skipped) {
				rows.push({ ...skipped, kind });
				continue;
			}
			while (times.length < target) {
				const started = performance.now();
				const cpu = process.cpuUsage();
				await graph.invoke(humanTurn(times.length), config);
				times.push(performance.now() - started);
				const used = process.cpuUsage(cpu);
				cpuTimes.push((used.user + used.system) / 1000);
				spentMs += times[times.length - 1]!;
			}
			const messages = (await graph.getState(config)).values.messages;
			rows.push({
				kind,
				turns: target,
				messages: messages.length,
				textBytes: messageTextBytes(messages),
				dbBytes: store.bytes(),
				emptyBytes,
				msPerTurn: median(times.slice(-WINDOW)),
				cpuMsPerTurn: median(cpuTimes.slice(-WINDOW))
			});
		}
		store.close();
		return rows;
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
}

/**
 * The estimate to print instead of running up to `target`: once a count has been skipped, or when
 * the time to get there (per-turn time extrapolated linearly, as the stock saver's grows) exceeds
 * the remaining budget. Needs two measured counts to extrapolate from.
 */
function predictSkip(rows: Row[], target: number, done: number, remainingMs: number): Omit<Row, 'kind'> | undefined {
	const measured = rows.filter((r) => r.estimatedSeconds === undefined);
	if (measured.length < 2) return undefined;
	const [a, b] = measured.slice(-2) as [Row, Row];
	const extrapolate = (key: 'msPerTurn' | 'cpuMsPerTurn', turn: number) =>
		b[key] + ((b[key] - a[key]) / (b.turns - a.turns)) * (turn - b.turns);
	const msAt = (turn: number) => extrapolate('msPerTurn', turn);
	let predictedMs = 0;
	for (let turn = done + 1; turn <= target; turn += 1) predictedMs += msAt(turn);
	const skipping = measured.length < rows.length;
	if (!skipping && predictedMs <= remainingMs) return undefined;
	// Stock bytes grow as q·n² + l·n (every checkpoint re-stores the history): fit the last two counts.
	const q = ((b.dbBytes ?? 0) / b.turns - (a.dbBytes ?? 0) / a.turns) / (b.turns - a.turns);
	const l = (a.dbBytes ?? 0) / a.turns - q * a.turns;
	return {
		turns: target,
		messages: (b.messages / b.turns) * target,
		textBytes: Math.round((b.textBytes / b.turns) * target),
		dbBytes: b.dbBytes === undefined ? undefined : Math.round(q * target * target + l * target),
		emptyBytes: b.emptyBytes,
		msPerTurn: msAt(target),
		cpuMsPerTurn: extrapolate('cpuMsPerTurn', target),
		estimatedSeconds: predictedMs / 1000
	};
}

/** Per turn count, over the runs that measured it: the lowest wall and CPU time (bytes do not vary). */
function bestOf(runs: Row[][]): Row[] {
	return runs[0]!.map((first, i) => {
		const measured = runs.map((run) => run[i]!).filter((row) => row.estimatedSeconds === undefined);
		if (measured.length === 0) return first;
		return {
			...measured[0]!,
			msPerTurn: Math.min(...measured.map((row) => row.msPerTurn)),
			cpuMsPerTurn: Math.min(...measured.map((row) => row.cpuMsPerTurn))
		};
	});
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`;
/** Bytes the turns added to the file, beyond the empty file's fixed pages, per byte of text. */
const growth = (row: Row) => (row.dbBytes! - (row.emptyBytes ?? 0)) / row.textBytes;

function table(rows: Row[]): string {
	const lines = [
		'| saver | turns | messages | message text | database | bytes / text | growth / text ' +
			'| ms / turn | vs 10 turns | CPU ms / turn | vs 10 turns |',
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
	];
	for (const row of rows) {
		const base = rows.find((r) => r.kind === row.kind && r.turns === turnCounts[0])!;
		const est = row.estimatedSeconds === undefined ? '' : 'est. ';
		const cells = [
			row.estimatedSeconds === undefined
				? row.kind
				: `${row.kind}: skipped (est. ${row.estimatedSeconds.toFixed(0)} s to run)`,
			String(row.turns),
			String(Math.round(row.messages)),
			mb(row.textBytes),
			row.dbBytes === undefined ? 'n/a (memory)' : `${est}${mb(row.dbBytes)}`,
			row.dbBytes === undefined ? '–' : `${est}${(row.dbBytes / row.textBytes).toFixed(1)}×`,
			row.dbBytes === undefined ? '–' : `${est}${growth(row).toFixed(1)}×`,
			`${est}${row.msPerTurn.toFixed(1)}`,
			`${est}${(row.msPerTurn / base.msPerTurn).toFixed(2)}×`,
			`${est}${row.cpuMsPerTurn.toFixed(1)}`,
			`${est}${(row.cpuMsPerTurn / base.cpuMsPerTurn).toFixed(2)}×`
		];
		lines.push(`| ${cells.join(' | ')} |`);
	}
	return lines.join('\n');
}

const KINDS: readonly Kind[] = ['DeltaSqliteSaver', 'stock SqliteSaver', 'in-memory reference'];
const childKind = args.find((a) => a.startsWith('--child='))?.slice('--child='.length) as Kind | undefined;

if (childKind !== undefined) {
	const rows = await measure(childKind, childKind === 'stock SqliteSaver' ? stockBudgetMs : Infinity);
	console.log(JSON.stringify(rows));
} else {
	const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	const memory = `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM`;
	console.log(`machine: ${cpu}, ${os.cpus().length} cores, ${memory}, node ${process.version}, ${os.platform()} ${os.release()}`);
	console.log(`graph: agent ⇄ tools, instant scripted model, ${TOOL_RESULT_BYTES}-byte tool results, 5 checkpoints/turn`);
	console.log("database: a file per saver, WAL, synchronous=NORMAL (as the app opens it; also the stock saver's default in WAL mode), measured after a TRUNCATE checkpoint");
	const runs = new Map<Kind, Row[][]>(KINDS.map((kind) => [kind, []]));
	// One process per saver and run, so no run inherits another's heap or JIT state.
	for (let round = 0; round < repeat; round += 1) {
		for (const kind of KINDS) {
			const started = performance.now();
			const argv = [...process.execArgv, fileURLToPath(import.meta.url), ...args, `--child=${kind}`];
			const child = spawnSync(process.execPath, argv, {
				encoding: 'utf8',
				stdio: ['ignore', 'pipe', 'inherit'],
				maxBuffer: 1 << 24
			});
			if (child.status !== 0) throw new Error(`${kind} run failed (exit ${child.status ?? child.signal})`);
			runs.get(kind)!.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as Row[]);
			console.log(`${kind}, run ${round + 1}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
		}
	}
	const rows = KINDS.flatMap((kind) => bestOf(runs.get(kind)!));
	console.log('');
	console.log(table(rows));
	console.log('');
	console.log('goals: database at most 2× the message text; a turn at 1000 within 1.2× a turn at 10');
	const flags = `--stock-budget=${stockBudgetMs / 1000} --repeat=${repeat}`;
	console.log(`reproduce: npx tsx bench/storage.ts ${turnCounts.join(' ')} ${flags}`);
	reportSummary('storage', summaryRows(rows));
}

function summaryRows(rows: Row[]): SummaryRow[] {
	const of = (kind: Kind, turns: number) => rows.find((r) => r.kind === kind && r.turns === turns)!;
	const est = (row: Row) => (row.estimatedSeconds === undefined ? '' : 'est. ');
	const ratio = (row: Row) => row.dbBytes! / row.textBytes;
	const first = turnCounts[0]!;
	const last = turnCounts[turnCounts.length - 1]!;
	const slowdown = (kind: Kind) => of(kind, last).msPerTurn / of(kind, first).msPerTurn;
	const summary: SummaryRow[] = [];
	for (const turns of turnCounts) {
		const [ours, stock] = [of('DeltaSqliteSaver', turns), of('stock SqliteSaver', turns)];
		summary.push({
			figure: `database ÷ message text, ${turns} turns`,
			ours: `${ratio(ours).toFixed(1)}×`,
			baseline: `${est(stock)}${ratio(stock).toFixed(1)}×`,
			goal: '≤ 2×',
			met: ratio(ours) <= 2
		});
		summary.push({
			figure: `database growth beyond the empty file (${((ours.emptyBytes ?? 0) / 1024).toFixed(0)} KiB) ÷ message text, ${turns} turns`,
			ours: `${growth(ours).toFixed(1)}×`,
			baseline: `${est(stock)}${growth(stock).toFixed(1)}×`,
			goal: '≤ 2×',
			met: growth(ours) <= 2
		});
		summary.push({
			figure: `ms per turn at ${turns} turns`,
			ours: ours.msPerTurn.toFixed(1),
			baseline: `${est(stock)}${stock.msPerTurn.toFixed(1)}`,
			goal: ''
		});
	}
	const stockLast = of('stock SqliteSaver', last);
	summary.push({
		figure: `turn at ${last} ÷ turn at ${first} (LangGraph alone, in memory: ${slowdown('in-memory reference').toFixed(2)}×)`,
		ours: `${slowdown('DeltaSqliteSaver').toFixed(2)}×`,
		baseline: `${est(stockLast)}${slowdown('stock SqliteSaver').toFixed(1)}×`,
		goal: '≤ 1.2×',
		met: slowdown('DeltaSqliteSaver') <= 1.2
	});
	return summary;
}
