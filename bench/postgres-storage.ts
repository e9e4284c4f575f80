// Checkpoint storage on PostgreSQL: the tables' bytes and turn latency as a thread grows, for
// DeltaPostgresSaver beside the stock PostgresSaver (@langchain/langgraph-checkpoint-postgres),
// each in a database of its own on one PostgreSQL 15 server this bench starts (Debian's binaries,
// a temp data directory, loopback).
//
//   npx tsx bench/postgres-storage.ts [turn counts…] [--stock-budget=<seconds>] [--repeat=<runs>]
//
// Method as bench/storage.ts (bench/support/turn-series.ts): one process per saver and run, best of
// --repeat runs (default 2), ms = median of the last 10 turns; the stock saver grows quadratically
// and stops at its budget, with an estimate for the counts it skipped. Bytes are
// pg_total_relation_size of the saver's tables (heap, TOAST, indexes) after VACUUM FULL, so they
// are the live data, not dead row versions autovacuum has yet to reclaim. The server runs with
// synchronous_commit=off, PostgreSQL's counterpart of the app's SQLite synchronous=NORMAL: a
// commit survives the process but may be lost to an OS crash, never half-applied. CPU ms are this
// process's; the server's own CPU time is not in them (it is in the wall time).

import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { TOOL_RESULT_BYTES } from '../test/unit/sqlite/checkpoint-agent-graph.js';
import { openPostgresStore, tableBytes, type SaverKind } from '../test/postgres/checkpoint-postgres-compare.js';
import { startPostgres } from '../test/support/postgres.js';
import { reportSummary } from './support/summary.js';
import { measureSeries, parseSeriesArgs, runSeriesChildren, seriesSummary, seriesTable } from './support/turn-series.js';

const args = process.argv.slice(2);
const { turnCounts, stockBudgetMs, repeat, childKind } = parseSeriesArgs(args, { turnCounts: [10, 200, 1000], budgetSeconds: 150 });

const KINDS = { DeltaPostgresSaver: 'delta', 'stock PostgresSaver': 'stock' } as const satisfies Record<string, SaverKind>;
type Kind = keyof typeof KINDS;
const URL_VARIABLE = 'BENCH_POSTGRES_URL';

if (childKind !== undefined) {
	const kind = childKind as Kind;
	const adminUrl = process.env[URL_VARIABLE]!;
	const rows = await measureSeries(
		kind,
		async () => {
			const store = await openPostgresStore(adminUrl, KINDS[kind]);
			return { saver: store.saver, bytes: () => tableBytes(store.pool, KINDS[kind]), close: () => store.close() };
		},
		turnCounts,
		kind === 'stock PostgresSaver' ? stockBudgetMs : Infinity
	);
	console.log(JSON.stringify(rows));
} else {
	const server = await startPostgres({ settings: { synchronous_commit: 'off' } });
	try {
		process.env[URL_VARIABLE] = server.url();
		const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
		const memory = `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM`;
		console.log(`machine: ${cpu}, ${os.cpus().length} cores, ${memory}, node ${process.version}, ${os.platform()} ${os.release()}`);
		console.log(`graph: agent ⇄ tools, instant scripted model, ${TOOL_RESULT_BYTES}-byte tool results, 5 checkpoints/turn`);
		console.log('database: PostgreSQL 15 on loopback, a database per saver, synchronous_commit=off; bytes after VACUUM FULL');
		const rows = runSeriesChildren(fileURLToPath(import.meta.url), args, Object.keys(KINDS), repeat);
		console.log('');
		console.log(seriesTable(rows, turnCounts));
		console.log('');
		const flags = `--stock-budget=${stockBudgetMs / 1000} --repeat=${repeat}`;
		console.log(`reproduce: npx tsx bench/postgres-storage.ts ${turnCounts.join(' ')} ${flags}`);
		reportSummary(
			'postgres-storage',
			seriesSummary(rows, turnCounts, { ours: 'DeltaPostgresSaver', stock: 'stock PostgresSaver', store: 'tables', empty: 'the empty tables' })
		);
	} finally {
		await server.stop();
	}
}
