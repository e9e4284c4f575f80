// Retention's cost (CHECKPOINT_RETENTION=latest:N through the checkpoint history contract) on
// PostgreSQL beside SQLite, measured in the same run: the first prune of a thread grown without
// retention (the thread lock is held this long on PostgreSQL, so a put to it waits as long), then
// the steady state the runtime keeps, a prune after every turn.
//
//   npx tsx bench/retention.ts [turns] [--keep=<N>]
//
// One thread of `turns` agent ⇄ tools turns (5 checkpoints each) per engine, after warm-up turns
// on another thread; ms are wall time of `prune`, steady state the median over the last 10 turns.
// PostgreSQL 15 from Debian on loopback, started by this bench, synchronous_commit=off as in
// bench/postgres-storage.ts; SQLite through openDatabase (WAL, synchronous=NORMAL, incremental_vacuum).

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { DeltaSqliteSaver } from '../src/lib/server/sqlite/checkpoint/index';
import { openDatabase } from '../src/lib/server/sqlite/database.js';
import { DeltaPostgresSaver, migratePostgres, postgresCheckpointHistory } from '../src/lib/server/postgres/index.js';
import { type CheckpointHistory } from '../src/lib/server/storage/checkpoint-history.js';
import { buildAgentGraph, humanTurn } from '../test/unit/sqlite/checkpoint-agent-graph.js';
import { createTestDatabase, startPostgres } from '../test/support/postgres.js';
import { tempDir } from '../test/support/service.js';
import { reportSummary } from './support/summary.js';
import { median, WINDOW } from './support/turn-series.js';
import { sqliteCheckpointHistory } from '../src/lib/server/sqlite/checkpoint/history';

const args = process.argv.slice(2);
const turns = Number(args.find((a) => /^\d+$/.test(a)) ?? 200);
const keep = Number(args.find((a) => a.startsWith('--keep='))?.slice('--keep='.length) ?? 5);
const WARMUP_TURNS = 20;

interface Engine {
	saver: BaseCheckpointSaver;
	history: CheckpointHistory;
	close(): Promise<void>;
}

interface Figures {
	engine: string;
	firstMs: number;
	firstDeleted: number;
	steadyMs: number;
}

async function measure(name: string, engine: Engine): Promise<Figures> {
	const graph = buildAgentGraph(engine.saver);
	const warm = { configurable: { thread_id: 'warmup' } };
	for (let turn = 0; turn < WARMUP_TURNS; turn += 1) {
		await graph.invoke(humanTurn(turn), warm);
		await engine.history.prune('warmup', keep, []);
	}
	const thread = { configurable: { thread_id: 'bench' } };
	for (let turn = 0; turn < turns; turn += 1) await graph.invoke(humanTurn(turn), thread);
	let started = performance.now();
	const first = await engine.history.prune('bench', keep, []);
	const firstMs = performance.now() - started;
	const steady: number[] = [];
	for (let turn = turns; turn < turns + WINDOW; turn += 1) {
		await graph.invoke(humanTurn(turn), thread);
		started = performance.now();
		await engine.history.prune('bench', keep, []);
		steady.push(performance.now() - started);
	}
	await engine.close();
	return { engine: name, firstMs, firstDeleted: first.deletedCheckpoints, steadyMs: median(steady) };
}

const server = await startPostgres({ settings: { synchronous_commit: 'off' } });
const dir = tempDir('sophos-bench-retention-');
try {
	const sqlite = openDatabase(path.join(dir, 'sophos.db'));
	const database = await createTestDatabase(server.url(), 'retention');
	const pool = new pg.Pool({ connectionString: database.url, max: 4 });
	await migratePostgres(pool);
	const results = [
		await measure('SQLite', {
			saver: new DeltaSqliteSaver(sqlite),
			history: sqliteCheckpointHistory(sqlite),
			close: async () => {
				sqlite.close();
			}
		}),
		await measure('PostgreSQL', {
			saver: new DeltaPostgresSaver(pool),
			history: postgresCheckpointHistory(pool),
			close: async () => {
				await pool.end();
				await database.drop();
			}
		})
	];
	const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	console.log(`machine: ${cpu}, ${os.cpus().length} cores, node ${process.version}`);
	console.log(`thread: ${turns} agent ⇄ tools turns (${turns * 5} checkpoints), keep ${keep} per branch`);
	console.log('');
	console.log('engine      first prune ms  checkpoints deleted  prune after a turn ms (median of 10)');
	for (const r of results) {
		console.log(`${r.engine.padEnd(12)}${r.firstMs.toFixed(1).padStart(14)}  ${String(r.firstDeleted).padStart(19)}  ${r.steadyMs.toFixed(2).padStart(10)}`);
	}
	console.log('');
	console.log(`reproduce: npx tsx bench/retention.ts ${turns} --keep=${keep}`);
	const [base, ours] = results as [Figures, Figures];
	reportSummary('retention', [
		{ figure: `first prune of ${turns} turns, ms (PostgreSQL; baseline SQLite)`, ours: ours.firstMs.toFixed(1), baseline: base.firstMs.toFixed(1), goal: '' },
		{ figure: 'prune after a turn, ms (PostgreSQL; baseline SQLite)', ours: ours.steadyMs.toFixed(2), baseline: base.steadyMs.toFixed(2), goal: '' }
	]);
} finally {
	fs.rmSync(dir, { recursive: true, force: true });
	await server.stop();
}
