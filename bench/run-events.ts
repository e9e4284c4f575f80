// A run's events kept in PostgreSQL and followed from a second instance, beside the same run with
// its EventLog alone (the single-instance service), in one process on one PostgreSQL 15 server this
// bench starts (Debian's binaries, a temp data directory, loopback, synchronous_commit=off).
//
//   npx tsx bench/run-events.ts [tokens] [--every-ms=<ms>] [--repeat=<runs>]
//
// A run publishes `tokens` (default 20,000) four-character tokens, then its `end`: one per turn of
// the event loop (a model far faster than any real one), or one every --every-ms ms (a real
// model's pace: 10 to 50 ms). With
// PostgreSQL, a RunEventWriter keeps them and a reader on the second instance (its own pool and
// notify bus) follows the run through remoteEventResponse to its end. Figures: wall and CPU ms of
// this process for the whole run (both instances are in it; PostgreSQL's own CPU is not), rows
// and INSERTs per token, kept bytes per byte of token text, and the time from a token's publish
// to its arrival at the remote reader (p50, p99). Best of --repeat runs (default 3) by wall time.

import pg from 'pg';
import { migratePostgres } from '../src/lib/server/postgres/migrate.js';
import { NotifyBus } from '../src/lib/server/postgres/notify-bus.js';
import { remoteEventResponse } from '../src/lib/server/postgres/events/remote-event-response.js';
import { RemoteReaders } from '../src/lib/server/postgres/events/run-readers.js';
import { RunEventWriter } from '../src/lib/server/postgres/events/run-event-writer.js';
import { postgresAppStorage } from '../src/lib/server/postgres/app/app-storage.js';
import { EventLog } from '../src/lib/server/stream/event-log.js';
import { createTestDatabase, startPostgres } from '../test/support/postgres.js';
import { reportSummary } from './support/summary.js';

const args = process.argv.slice(2);
const tokens = Number(args.find((a) => /^\d+$/.test(a)) ?? 20_000);
const repeat = Number(args.find((a) => a.startsWith('--repeat='))?.slice(9) ?? 3);
const everyMs = args.find((a) => a.startsWith('--every-ms='))?.slice(11);
const pace = everyMs === undefined ? 'one per turn of the event loop' : `one every ${everyMs} ms`;
const TOKEN = 'abcd';
const nextTurn = () =>
	new Promise<void>((resolve) => (everyMs === undefined ? setImmediate(resolve) : setTimeout(resolve, Number(everyMs))));

type Figures = { wallMs: number; cpuMs: number; rows?: number; keptBytesPerTextByte?: number; p50Ms?: number; p99Ms?: number };

function measure<T>(work: () => Promise<T>): Promise<{ wallMs: number; cpuMs: number; value: T }> {
	const cpu = process.cpuUsage();
	const start = performance.now();
	return work().then((value) => {
		const used = process.cpuUsage(cpu);
		return { wallMs: performance.now() - start, cpuMs: (used.user + used.system) / 1000, value };
	});
}

async function publishRun(log: EventLog, publishedAt?: Map<number, number>): Promise<void> {
	for (let i = 0; i < tokens; i++) {
		const id = log.publish({ event: 'token', data: TOKEN });
		publishedAt?.set(id, performance.now());
		await nextTurn();
	}
	log.publish({ event: 'end', data: { conversation: 'c', run: 'r', status: 'completed' } });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

async function localOnly(): Promise<Figures> {
	const { wallMs, cpuMs } = await measure(() => publishRun(new EventLog(10_000)));
	return { wallMs, cpuMs };
}

async function withPostgres(url: string): Promise<Figures> {
	const pools = [0, 1].map(() => new pg.Pool({ connectionString: url, max: 4 }));
	const reader = new NotifyBus({ client: { connectionString: url }, log: console.error });
	await reader.start();
	const storage = postgresAppStorage(pools[0]!, { maxConcurrentRuns: 100, maxQueuedMessages: 100 }, { instanceId: 'bench', leaseMs: 60_000 });
	const conversationId = crypto.randomUUID();
	const runId = crypto.randomUUID();
	await storage.conversations.createWithRun(conversationId, runId, 'bench', new Date().toISOString());
	try {
		const log = new EventLog(10_000);
		const writer = RunEventWriter.attach(pools[0]!, log, { runId, log: console.error });
		const readers = new RemoteReaders({ pool: pools[1]!, bus: reader, log: console.error }, 60_000);
		const parts = { pool: pools[1]!, bus: reader, readers, counts: new Map<string, number>(), log: console.error };
		const response = await remoteEventResponse(parts, runId, 0, new AbortController().signal, { maxFollowers: 4, backlogLimitBytes: 64 << 20, onDrop: () => {} });
		const publishedAt = new Map<number, number>();
		const latencies: number[] = [];
		const read = (async () => {
			const decoder = new TextDecoder();
			let rest = '';
			for await (const chunk of response.body! as unknown as AsyncIterable<Uint8Array>) {
				const now = performance.now();
				rest += decoder.decode(chunk, { stream: true });
				for (const match of rest.matchAll(/^id: (\d+)$/gm)) {
					const at = publishedAt.get(Number(match[1]));
					if (at !== undefined) latencies.push(now - at);
				}
				rest = rest.slice(rest.lastIndexOf('\n\n') + 2);
			}
		})();
		const { wallMs, cpuMs } = await measure(async () => {
			await publishRun(log, publishedAt);
			await writer.done;
			await read;
		});
		const { rows } = await pools[0]!.query<{ rows: string; bytes: string }>(
			'SELECT count(*) AS rows, sum(octet_length(events)) AS bytes FROM run_events WHERE run_id = $1',
			[runId]
		);
		latencies.sort((x, y) => x - y);
		return {
			wallMs,
			cpuMs,
			rows: Number(rows[0]!.rows),
			keptBytesPerTextByte: Number(rows[0]!.bytes) / (tokens * TOKEN.length),
			p50Ms: percentile(latencies, 50),
			p99Ms: percentile(latencies, 99)
		};
	} finally {
		await reader.close();
		await Promise.all(pools.map((pool) => pool.end()));
	}
}

const best = (runs: Figures[]) => runs.reduce((a, b) => (b.wallMs < a.wallMs ? b : a));

const server = await startPostgres({ settings: { synchronous_commit: 'off' } });
try {
	const database = await createTestDatabase(server.url(), 'bench');
	const setup = new pg.Pool({ connectionString: database.url });
	await migratePostgres(setup);
	await setup.end();
	const local: Figures[] = [];
	const kept: Figures[] = [];
	for (let i = 0; i < repeat; i++) {
		local.push(await localOnly());
		kept.push(await withPostgres(database.url));
	}
	const [l, k] = [best(local), best(kept)];
	const f = (n: number, digits = 1) => n.toFixed(digits);
	console.log(`run: ${tokens} tokens of ${TOKEN.length} characters, ${pace}, then end; best of ${repeat}`);
	console.log('');
	console.log('| | wall ms | CPU ms | rows | rows per 1,000 tokens | kept bytes ÷ text bytes | publish → remote reader p50 / p99 ms |');
	console.log('| --- | --- | --- | --- | --- | --- | --- |');
	console.log(`| EventLog alone | ${f(l.wallMs)} | ${f(l.cpuMs)} | – | – | – | – |`);
	console.log(
		`| kept in PostgreSQL, followed from instance B | ${f(k.wallMs)} | ${f(k.cpuMs)} | ${k.rows} | ${f((k.rows! * 1000) / tokens, 2)} | ${f(k.keptBytesPerTextByte!, 2)} | ${f(k.p50Ms!)} / ${f(k.p99Ms!)} |`
	);
	console.log('');
	console.log(`reproduce: npx tsx bench/run-events.ts ${tokens}${everyMs === undefined ? '' : ` --every-ms=${everyMs}`} --repeat=${repeat}`);
	reportSummary('run-events', [
		{ figure: `CPU ms for a ${tokens}-token run (${pace}), kept and followed remotely`, ours: f(k.cpuMs), baseline: f(l.cpuMs), goal: '' },
		{ figure: `rows (INSERTs) per 1,000 tokens (${pace})`, ours: f((k.rows! * 1000) / tokens, 2), baseline: '–', goal: 'batched, not a write per token', met: k.rows! < tokens / 10 },
		{ figure: `publish → remote reader p99 ms (${pace})`, ours: f(k.p99Ms!), baseline: '–', goal: '' }
	]);
	await database.drop();
} finally {
	await server.stop();
}
