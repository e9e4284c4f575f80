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

import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import type { RunnableConfig } from '@langchain/core/runnables';
import { BaseCheckpointSaver, type Checkpoint, type CheckpointTuple } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { DeltaSqliteSaver } from '../src/lib/server/sqlite/checkpoint/index';
import { migrate } from '../src/lib/server/sqlite/migrate.js';
import { TOOL_RESULT_BYTES } from '../test/unit/sqlite/checkpoint-agent-graph.js';
import { reportSummary, type SummaryRow } from './support/summary.js';
import {
	measureSeries,
	parseSeriesArgs,
	runSeriesChildren,
	seriesSummary,
	seriesTable,
	type SeriesRow,
	type TurnStore
} from './support/turn-series.js';

const args = process.argv.slice(2);
const { turnCounts, stockBudgetMs, repeat, childKind } = parseSeriesArgs(args, { turnCounts: [10, 50, 200, 1000], budgetSeconds: 120 });

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
type Row = SeriesRow & { kind: Kind };

function open(kind: Kind, dir: string, name: string): TurnStore {
	if (kind === 'in-memory reference') return { saver: new ReferenceSaver(), bytes: async () => undefined, close: async () => {} };
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
	const bytes = async () => {
		db.pragma('wal_checkpoint(TRUNCATE)');
		return statSync(file).size + (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
	};
	return {
		saver,
		bytes,
		close: async () => {
			db.close();
		}
	};
}

const KINDS: readonly Kind[] = ['DeltaSqliteSaver', 'stock SqliteSaver', 'in-memory reference'];

if (childKind !== undefined) {
	const kind = childKind as Kind;
	const dir = mkdtempSync(join(os.tmpdir(), 'sophos-bench-'));
	try {
		const budget = kind === 'stock SqliteSaver' ? stockBudgetMs : Infinity;
		console.log(JSON.stringify(await measureSeries(kind, async (name) => open(kind, dir, name), turnCounts, budget)));
	} finally {
		rmSync(dir, { recursive: true, force: true });
	}
} else {
	const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	const memory = `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM`;
	console.log(`machine: ${cpu}, ${os.cpus().length} cores, ${memory}, node ${process.version}, ${os.platform()} ${os.release()}`);
	console.log(`graph: agent ⇄ tools, instant scripted model, ${TOOL_RESULT_BYTES}-byte tool results, 5 checkpoints/turn`);
	console.log("database: a file per saver, WAL, synchronous=NORMAL (as the app opens it; also the stock saver's default in WAL mode), measured after a TRUNCATE checkpoint");
	const rows = runSeriesChildren(fileURLToPath(import.meta.url), args, KINDS, repeat) as Row[];
	console.log('');
	console.log(seriesTable(rows, turnCounts));
	console.log('');
	console.log('goals: database at most 2× the message text; a turn at 1000 within 1.2× a turn at 10');
	const flags = `--stock-budget=${stockBudgetMs / 1000} --repeat=${repeat}`;
	console.log(`reproduce: npx tsx bench/storage.ts ${turnCounts.join(' ')} ${flags}`);
	reportSummary('storage', summaryRows(rows));
}

function summaryRows(rows: Row[]): SummaryRow[] {
	const reference = rows.filter((row) => row.kind === 'in-memory reference');
	const referenceSlowdown = reference[reference.length - 1]!.msPerTurn / reference[0]!.msPerTurn;
	return seriesSummary(rows, turnCounts, {
		ours: 'DeltaSqliteSaver',
		stock: 'stock SqliteSaver',
		store: 'database',
		empty: 'the empty file',
		goals: { bytesPerText: 2, slowdown: 1.2 },
		slowdownNote: `LangGraph alone, in memory: ${referenceSlowdown.toFixed(2)}×`
	});
}
