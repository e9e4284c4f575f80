// Connection use under load (issue 26): N service processes on one PostgreSQL database, M runs at
// once on each (the scripted model, a tool call each: agent → tools → agent), every run followed
// from another instance. Prints how long checkouts of the instances' pools waited, from their
// `sophos_db_pool_wait_seconds` histograms, beside a step's duration under the same load, and what
// the runs came to (completed, taken over, fenced, lease renewals failed) and how often connections
// waited on row locks (pg_stat_activity sampled).
// Run: npm run bench -- pool-load [instances] [runsPerInstance] [DATABASE_POOL_MAX] (needs `npm run build`)

import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { APPLICATION_NAMES } from '../src/lib/server/postgres/engine';
import { startPostgres, createTestDatabase } from '../test/support/postgres';
import { samples } from '../test/support/prometheus';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { callsScript } from '../test/support/scripts';
import { Service, tempDir } from '../test/support/service';
import { followRun } from '../test/support/sse';
import { reportSummary } from './support/summary';
import { median } from './support/turn-sides';
import { testServer } from './support/turn-sides';

const INSTANCES = Number(process.argv[2] ?? 3);
const RUNS_PER_INSTANCE = Number(process.argv[3] ?? 50);
const POOL_MAX = process.argv[4];
const RUNS = INSTANCES * RUNS_PER_INSTANCE;
/** Supersteps of one run: the model asks for the tool, the tool, the model answers. */
const STEPS_PER_RUN = 3;

type Waits = { buckets: [number, number][]; count: number; sum: number };

/** The instance's checkout-wait histogram: cumulative counts by upper bound (seconds), count and sum. */
function waitsOf(exposition: string): Waits {
	const buckets = Object.entries(samples(exposition, 'sophos_db_pool_wait_seconds_bucket')).map(
		([series, n]) => [Number(/le="([^"]+)"/.exec(series)![1]), n] as [number, number]
	);
	return {
		buckets: buckets.sort((a, b) => a[0] - b[0]),
		count: samples(exposition, 'sophos_db_pool_wait_seconds_count').sophos_db_pool_wait_seconds_count!,
		sum: samples(exposition, 'sophos_db_pool_wait_seconds_sum').sophos_db_pool_wait_seconds_sum!
	};
}

/** The upper bound of the bucket that holds quantile `q` of every instance's checkouts together. */
function quantileBound(all: Waits[], q: number): number {
	const bounds = all[0]!.buckets.map(([le]) => le);
	const total = all.reduce((n, w) => n + w.count, 0);
	for (const [i, le] of bounds.entries()) {
		const below = all.reduce((n, w) => n + w.buckets[i]![1], 0);
		if (below >= q * total) return le;
	}
	return Infinity;
}

/**
 * Samples pg_stat_activity every 20 ms from a connection of its own while the load runs: how often
 * the instances' lease connections, and how many of their pools' connections, wait on a lock.
 */
async function sampleLocks(url: string, database: string) {
	const client = new pg.Client({ connectionString: url });
	// Ended with the server when a failed run stops the bench; the run's error is the one to show.
	client.on('error', () => {});
	await client.connect();
	const tally = { samples: 0, leaseLocked: 0, poolLocked: 0, statements: new Map<string, number>() };
	let stopped = false;
	const loop = (async () => {
		while (!stopped) {
			const { rows } = await client.query<{ application_name: string; statement: string; n: number }>(
				`SELECT application_name, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS statement, count(*)::int AS n
				 FROM pg_stat_activity WHERE datname = $1 AND wait_event_type = 'Lock' GROUP BY 1, 2`,
				[database]
			);
			tally.samples += 1;
			if (rows.some((row) => row.application_name === APPLICATION_NAMES.leases)) tally.leaseLocked += 1;
			for (const row of rows) {
				if (row.application_name !== APPLICATION_NAMES.pool) continue;
				tally.poolLocked += row.n;
				tally.statements.set(row.statement, (tally.statements.get(row.statement) ?? 0) + row.n);
			}
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	})();
	// A sample that failed (the server stopped under a failed run) stops the sampling, said at the end.
	const sampled = loop.catch((error: Error) => error);
	return async () => {
		stopped = true;
		const failed = await sampled;
		await client.end();
		if (failed) throw failed;
		return tally;
	};
}

const ms = (seconds: number) => (Number.isFinite(seconds) ? `${(seconds * 1000).toFixed(seconds < 0.01 ? 1 : 0)} ms` : '> 10 s');

// PostgreSQL's default max_connections (tests start theirs with 40), so that a bigger pool fits:
// each instance holds DATABASE_POOL_MAX + 2 connections.
const server = await startPostgres({ settings: { synchronous_commit: 'off', max_connections: '100' } });
const dir = tempDir('sophos-bench-pool-');
const ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }], { content: 'All quiet.' }));
const services: Service[] = [];
try {
	const database = await createTestDatabase(server.url(), 'poolload');
	const configDir = path.join(dir, 'config');
	fs.mkdirSync(configDir, { recursive: true });
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ test: { ...testServer(path.join(dir, 'calls.log')), trusted: true } }));
	fs.writeFileSync(path.join(configDir, 'system.md'), 'You are a benchmark.');
	for (let i = 0; i < INSTANCES; i++) {
		services.push(
			await Service.start({
				ollamaUrl: ollama.url,
				dataDir: path.join(dir, `instance-${i}`),
				configDir,
				env: {
					DATABASE_URL: database.url,
					SOPHOS_INSTANCE_ID: `bench-${i}`,
					MAX_CONCURRENT_RUNS: String(RUNS),
					// Every POST and every stream comes from loopback, one client to the front door.
					MAX_CONNECTIONS_PER_CLIENT: String(2 * RUNS),
					...(POOL_MAX ? { DATABASE_POOL_MAX: POOL_MAX } : {})
				}
			})
		);
	}
	const run = async (i: number, owner: Service, reader: Service) => {
		const started = performance.now();
		const posted = await owner.post('/api/chat', { message: `run ${i}` });
		if (!posted.ok) throw new Error(`run ${i} refused: ${posted.status} ${await posted.text()}`);
		const { conversation } = (await posted.json()) as { conversation: string };
		const events = await followRun(reader.url, conversation);
		const end = events.at(-1);
		return { ms: performance.now() - started, completed: end?.event === 'end' && (end.data as { status?: string }).status === 'completed' };
	};
	// Warm-up: each instance opens its pool and its tool server, and runs one step of each kind.
	for (const [i, s] of services.entries()) await run(-1 - i, s, s);
	const before = await Promise.all(services.map(async (s) => waitsOf(await (await s.fetch('/api/metrics')).text())));

	const alone = [];
	for (let i = 0; i < 5; i++) alone.push((await run(-100 - i, services[0]!, services[0]!)).ms);
	const stopSampling = await sampleLocks(server.url(), database.name);
	const results = await Promise.all(Array.from({ length: RUNS }, (_, i) => run(i, services[i % INSTANCES]!, services[(i + 1) % INSTANCES]!)));
	const locks = await stopSampling();

	const texts = await Promise.all(services.map(async (s) => (await s.fetch('/api/metrics')).text()));
	// The load's checkouts only: the warm-up's and the lone runs' are taken out.
	const loaded = texts.map((text, k) => {
		const w = waitsOf(text);
		const b = before[k]!;
		return { buckets: w.buckets.map(([le, n], i) => [le, n - b.buckets[i]![1]] as [number, number]), count: w.count - b.count, sum: w.sum - b.sum };
	});
	const counter = (name: string) => texts.reduce((n, t) => n + (samples(t, name)[name] ?? 0), 0);
	const checkouts = loaded.reduce((n, w) => n + w.count, 0);
	const meanWait = loaded.reduce((n, w) => n + w.sum, 0) / checkouts;
	const [p99, max] = [quantileBound(loaded, 0.99), quantileBound(loaded, 1)];
	const stepLoaded = median(results.map((r) => r.ms)) / STEPS_PER_RUN / 1000;
	const stepAlone = median(alone) / STEPS_PER_RUN / 1000;
	const completed = results.filter((r) => r.completed).length;

	console.log(`\nPool checkouts under load: ${INSTANCES} instances × ${RUNS_PER_INSTANCE} runs at once (a tool call each, followed from another instance), DATABASE_POOL_MAX=${POOL_MAX ?? '10 (default)'}`);
	console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}`);
	console.log(`Reproduce: npm run bench -- pool-load ${INSTANCES} ${RUNS_PER_INSTANCE}${POOL_MAX ? ` ${POOL_MAX}` : ''}\n`);
	console.log('| figure | value |\n| --- | --- |');
	console.log(`| runs completed | ${completed} of ${RUNS} |`);
	console.log(`| runs taken over / fenced writes / lease renewals failed | ${counter('sophos_runs_taken_over_total')} / ${counter('sophos_fenced_writes_refused_total')} / ${counter('sophos_lease_renewals_failed_total')} |`);
	console.log(`| checkouts | ${checkouts} |`);
	console.log(`| checkout wait: mean | ${ms(meanWait)} |`);
	console.log(`| checkout wait: p99 (bucket bound) | ≤ ${ms(p99)} |`);
	console.log(`| checkout wait: max (bucket bound) | ≤ ${ms(max)} |`);
	console.log(`| samples in which a lease connection waited on a row lock | ${((100 * locks.leaseLocked) / locks.samples).toFixed(1)}% of ${locks.samples} |`);
	console.log(`| pool connections waiting on a lock, mean over the samples | ${(locks.poolLocked / locks.samples).toFixed(2)} |`);
	console.log(`| a step under this load (median run ÷ ${STEPS_PER_RUN}) | ${ms(stepLoaded)} |`);
	console.log(`| a step alone (median of 5 lone runs ÷ ${STEPS_PER_RUN}) | ${ms(stepAlone)} |`);

	console.log('\nStatements of the pools waiting on a lock, by samples (most first)\n\n| statement | mean waiting |\n| --- | --- |');
	for (const [statement, n] of [...locks.statements].sort((a, b) => b[1] - a[1]).slice(0, 6)) {
		console.log(`| \`${statement.replace(/\|/g, '\\|')}\` | ${(n / locks.samples).toFixed(2)} |`);
	}

	reportSummary('pool-load', [
		{
			figure: `max checkout wait, ${INSTANCES} instances × ${RUNS_PER_INSTANCE} runs (bucket bound)`,
			ours: `≤ ${ms(max)}`,
			baseline: `a step under the same load: ${ms(stepLoaded)}`,
			goal: '≤ a step',
			met: max <= stepLoaded
		},
		{ figure: 'runs completed, none taken over or fenced', ours: `${completed} of ${RUNS}`, baseline: '–', goal: 'all', met: completed === RUNS && counter('sophos_runs_taken_over_total') + counter('sophos_fenced_writes_refused_total') === 0 }
	]);
	await database.drop();
} finally {
	for (const s of services) await s.stop();
	await ollama.close();
	await server.stop();
}
