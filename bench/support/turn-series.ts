// The checkpoint storage benches' shared method: one agent ⇄ tools thread grown turn by turn on
// one saver, with its store's bytes and the turn time at each turn count; savers that slow down
// quadratically stop at a time budget and get an estimate instead; each saver runs in a process of
// its own, several times, interleaved, and keeps its lowest times (timings on a shared 2-core box
// vary by 2× run to run; sizes do not vary).

import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { buildAgentGraph, humanTurn, messageTextBytes } from '../../test/unit/sqlite/checkpoint-agent-graph.js';
import type { SummaryRow } from './summary.js';

/** ms/turn is the median of the last WINDOW turns before each count. */
export const WINDOW = 10;
// Short threads on a throwaway store first, so early counts are not charged for JIT warm-up
// (V8 is still compiling after 40 turns); short, so a quadratic saver's warm-up stays cheap.
const WARMUP_THREADS = 20;

export interface TurnStore {
	saver: BaseCheckpointSaver;
	/** The store's bytes now, or undefined when it keeps nothing on disk. */
	bytes(): Promise<number | undefined>;
	close(): Promise<void>;
}

export interface SeriesRow {
	kind: string;
	turns: number;
	messages: number;
	textBytes: number;
	dbBytes?: number;
	/** The store before the first turn: tables and indexes, one page each at least. */
	emptyBytes?: number;
	msPerTurn: number;
	cpuMsPerTurn: number;
	/** Set when the count was not run and the numbers are extrapolated. */
	estimatedSeconds?: number;
}

export const median = (values: number[]) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export function parseSeriesArgs(args: readonly string[], defaults: { turnCounts: number[]; budgetSeconds: number }) {
	const turnCounts = args.filter((a) => /^\d+$/.test(a)).map(Number).sort((a, b) => a - b);
	if (turnCounts.length === 0) turnCounts.push(...defaults.turnCounts);
	const budgetArg = args.find((a) => a.startsWith('--stock-budget='));
	const repeatArg = args.find((a) => a.startsWith('--repeat='));
	return {
		turnCounts,
		stockBudgetMs: 1000 * (budgetArg ? Number(budgetArg.split('=')[1]) : defaults.budgetSeconds),
		repeat: repeatArg ? Math.max(1, Number(repeatArg.split('=')[1])) : 2,
		childKind: args.find((a) => a.startsWith('--child='))?.slice('--child='.length)
	};
}

/** Grows one thread on `open('bench')` up to each turn count, after warm-up threads on `open('warmup')`. */
export async function measureSeries(
	kind: string,
	open: (name: string) => Promise<TurnStore>,
	turnCounts: readonly number[],
	budgetMs: number
): Promise<SeriesRow[]> {
	const warm = await open('warmup');
	const warmGraph = buildAgentGraph(warm.saver);
	for (let thread = 0; thread < WARMUP_THREADS; thread += 1) {
		const warmConfig = { configurable: { thread_id: `warmup-${thread}` } };
		for (let turn = 0; turn < WINDOW; turn += 1) await warmGraph.invoke(humanTurn(turn), warmConfig);
	}
	await warm.close();

	const store = await open('bench');
	const emptyBytes = await store.bytes();
	const graph = buildAgentGraph(store.saver);
	const config = { configurable: { thread_id: randomUUID() } };
	const times: number[] = [];
	const cpuTimes: number[] = [];
	const rows: SeriesRow[] = [];
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
			dbBytes: await store.bytes(),
			emptyBytes,
			msPerTurn: median(times.slice(-WINDOW)),
			cpuMsPerTurn: median(cpuTimes.slice(-WINDOW))
		});
	}
	await store.close();
	return rows;
}

/**
 * The estimate to print instead of running up to `target`: once a count has been skipped, or when
 * the time to get there (per-turn time extrapolated linearly, as a quadratic saver's grows) exceeds
 * the remaining budget. Needs two measured counts to extrapolate from.
 */
function predictSkip(rows: SeriesRow[], target: number, done: number, remainingMs: number): Omit<SeriesRow, 'kind'> | undefined {
	const measured = rows.filter((r) => r.estimatedSeconds === undefined);
	if (measured.length < 2) return undefined;
	const [a, b] = measured.slice(-2) as [SeriesRow, SeriesRow];
	const extrapolate = (key: 'msPerTurn' | 'cpuMsPerTurn', turn: number) =>
		b[key] + ((b[key] - a[key]) / (b.turns - a.turns)) * (turn - b.turns);
	const msAt = (turn: number) => extrapolate('msPerTurn', turn);
	let predictedMs = 0;
	for (let turn = done + 1; turn <= target; turn += 1) predictedMs += msAt(turn);
	const skipping = measured.length < rows.length;
	if (!skipping && predictedMs <= remainingMs) return undefined;
	// Quadratic bytes grow as q·n² + l·n (every checkpoint re-stores the history): fit the last two counts.
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

/**
 * Runs `script --child=<kind>` in a process of its own per kind and round, interleaved, and keeps
 * per kind and turn count the lowest wall and CPU time over the runs that measured it.
 */
export function runSeriesChildren(script: string, args: readonly string[], kinds: readonly string[], repeat: number): SeriesRow[] {
	const runs = new Map<string, SeriesRow[][]>(kinds.map((kind) => [kind, []]));
	for (let round = 0; round < repeat; round += 1) {
		for (const kind of kinds) {
			const started = performance.now();
			const argv = [...process.execArgv, script, ...args, `--child=${kind}`];
			const child = spawnSync(process.execPath, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 });
			if (child.status !== 0) throw new Error(`${kind} run failed (exit ${child.status ?? child.signal})`);
			runs.get(kind)!.push(JSON.parse(child.stdout.trim().split('\n').pop()!) as SeriesRow[]);
			console.log(`${kind}, run ${round + 1}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
		}
	}
	return kinds.flatMap((kind) => bestOf(runs.get(kind)!));
}

function bestOf(runs: SeriesRow[][]): SeriesRow[] {
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
/** Bytes the turns added to the store, beyond the empty store's fixed pages, per byte of text. */
const growth = (row: SeriesRow) => (row.dbBytes! - (row.emptyBytes ?? 0)) / row.textBytes;
const estimated = (row: SeriesRow) => (row.estimatedSeconds === undefined ? '' : 'est. ');

export function seriesTable(rows: readonly SeriesRow[], turnCounts: readonly number[]): string {
	const lines = [
		'| saver | turns | messages | message text | database | bytes / text | growth / text ' +
			'| ms / turn | vs 10 turns | CPU ms / turn | vs 10 turns |',
		'|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
	];
	for (const row of rows) {
		const base = rows.find((r) => r.kind === row.kind && r.turns === turnCounts[0])!;
		const est = estimated(row);
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

export interface SeriesSummaryOptions {
	ours: string;
	stock: string;
	/** What the bytes are of, e.g. `database`, and its empty state, e.g. `the empty file`. */
	store: string;
	empty: string;
	/** Goals as written in the performance issue, when there are some. */
	goals?: { bytesPerText: number; slowdown: number };
	/** Said beside the slowdown figure, e.g. LangGraph's own in memory. */
	slowdownNote?: string;
}

/** The headline figures of a series for `npm run bench`'s summary (support/summary.ts). */
export function seriesSummary(rows: readonly SeriesRow[], turnCounts: readonly number[], options: SeriesSummaryOptions): SummaryRow[] {
	const { ours: oursKind, stock: stockKind, store, empty, goals } = options;
	const of = (kind: string, turns: number) => rows.find((r) => r.kind === kind && r.turns === turns)!;
	const ratio = (row: SeriesRow) => row.dbBytes! / row.textBytes;
	const first = turnCounts[0]!;
	const last = turnCounts[turnCounts.length - 1]!;
	const slowdown = (kind: string) => of(kind, last).msPerTurn / of(kind, first).msPerTurn;
	const goal = (limit: number | undefined, value: number) =>
		limit === undefined ? { goal: '' } : { goal: `≤ ${limit}×`, met: value <= limit };
	const summary: SummaryRow[] = [];
	for (const turns of turnCounts) {
		const [ours, stock] = [of(oursKind, turns), of(stockKind, turns)];
		summary.push({
			figure: `${store} ÷ message text, ${turns} turns`,
			ours: `${ratio(ours).toFixed(1)}×`,
			baseline: `${estimated(stock)}${ratio(stock).toFixed(1)}×`,
			...goal(goals?.bytesPerText, ratio(ours))
		});
		summary.push({
			figure: `${store} growth beyond ${empty} (${((ours.emptyBytes ?? 0) / 1024).toFixed(0)} KiB) ÷ message text, ${turns} turns`,
			ours: `${growth(ours).toFixed(1)}×`,
			baseline: `${estimated(stock)}${growth(stock).toFixed(1)}×`,
			...goal(goals?.bytesPerText, growth(ours))
		});
		summary.push({
			figure: `ms per turn at ${turns} turns`,
			ours: ours.msPerTurn.toFixed(1),
			baseline: `${estimated(stock)}${stock.msPerTurn.toFixed(1)}`,
			goal: ''
		});
	}
	summary.push({
		figure: `turn at ${last} ÷ turn at ${first}${options.slowdownNote ? ` (${options.slowdownNote})` : ''}`,
		ours: `${slowdown(oursKind).toFixed(2)}×`,
		baseline: `${estimated(of(stockKind, last))}${slowdown(stockKind).toFixed(1)}×`,
		...goal(goals?.slowdown, slowdown(oursKind))
	});
	return summary;
}
