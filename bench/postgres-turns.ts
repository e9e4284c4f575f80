import Database from 'better-sqlite3';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { startPostgres, createTestDatabase } from '../test/support/postgres';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { callsScript } from '../test/support/scripts';
import { tempDir } from '../test/support/service';
import { reportSummary } from './support/summary';
import { breakdownTable, instrumentPg, resetPgCounts, sampleLockWaits, SERVER_TIMING_SETTINGS, serverStatementTimes, serverTable } from './support/pg-statements';
import { serviceSide } from './support/service-turns';
import { alternate, bareSide, median, sophosSide, type Turn } from './support/turn-sides';

/**
 * The per-turn cost of the runtime on each engine: Sophos on PostgreSQL (DATABASE_URL) and on its
 * SQLite file, beside bare LangGraph with the stock PostgresSaver and with the stock SqliteSaver,
 * in one process, on the same scripted model server and MCP tool (bench/support/turn-sides.ts).
 * PostgreSQL is Debian's 15 started for the run (a temp directory, loopback, synchronous_commit=off,
 * the counterpart of the SQLite file's synchronous=NORMAL); its own CPU time is in the wall figures.
 * Also prints where a PostgreSQL turn's time goes on each PostgreSQL side: round trips and time by
 * kind of statement, waits for a pooled connection and on locks (support/pg-statements.ts), and
 * the same statements by the server's own clock (pg_stat_statements: executing and planning).
 * Then the same turn through the built service (POST /api/chat, its SSE stream to the end), a
 * service process on PostgreSQL (over loopback TCP, and over the server's unix socket) beside one
 * on its SQLite file, alternating thread by thread.
 * Run: npx tsx bench/postgres-turns.ts [threads] [turnsPerThread] [serviceThreads] (needs `npm run build`)
 */
const THREADS = Number(process.argv[2] ?? 20);
const TURNS = Number(process.argv[3] ?? 10);
/** Threads through the built service per engine, after one warm-up thread each. */
const SERVICE_THREADS = Number(process.argv[4] ?? 10);

instrumentPg();
const server = await startPostgres({ settings: { synchronous_commit: 'off', ...SERVER_TIMING_SETTINGS } });
const dir = tempDir('sophos-bench-');
const log = path.join(dir, 'calls.log');
const ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));
try {
	const [bareDb, oursDb] = [await createTestDatabase(server.url(), 'bare'), await createTestDatabase(server.url(), 'ours')];
	const barePool = new pg.Pool({ connectionString: bareDb.url, max: 4 });
	const stockPg = new PostgresSaver(barePool);
	await stockPg.setup();
	const sides = {
		'bare + stock PostgresSaver': await bareSide({ ollamaUrl: ollama.url, log, saver: stockPg, turns: TURNS, close: () => barePool.end() }),
		'Sophos on PostgreSQL': await sophosSide({ ollamaUrl: ollama.url, log, dir: path.join(dir, 'pg'), turns: TURNS, env: { DATABASE_URL: oursDb.url } }),
		'bare + stock SqliteSaver': await bareSide({ ollamaUrl: ollama.url, log, saver: new SqliteSaver(new Database(path.join(dir, 'bare.db'))), turns: TURNS }),
		'Sophos on SQLite': await sophosSide({ ollamaUrl: ollama.url, log, dir: path.join(dir, 'sqlite'), turns: TURNS })
	};
	const stopSampling = await sampleLockWaits(server.url());
	const serverTimes = await serverStatementTimes(server.url());
	let warm!: ReturnType<typeof serverTimes.read>;
	const measured = await alternate(sides, THREADS, 3, () => {
		resetPgCounts();
		warm = serverTimes.read();
	});
	const [atWarm, atEnd] = [await warm, await serverTimes.read()];
	await serverTimes.close();
	await stopSampling();
	for (const side of Object.values(sides)) await side.close();

	const fig = (turns: Turn[]) => ({ wall: median(turns.map((t) => t.wall)), cpu: median(turns.map((t) => t.cpu)) });
	const f = Object.fromEntries(Object.entries(measured).map(([k, v]) => [k, fig(v as Turn[])])) as Record<keyof typeof sides, { wall: number; cpu: number }>;
	const base = f['bare + stock PostgresSaver'];
	console.log(`\nPer-turn cost by engine, agent → tools → agent, ${THREADS} threads × ${TURNS} turns each side, alternating, median`);
	console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}`);
	console.log(`Reproduce: npx tsx bench/postgres-turns.ts ${THREADS} ${TURNS}\n`);
	console.log('| path | ms per turn | CPU ms per turn | ÷ bare + stock PostgresSaver (wall) |\n| --- | --- | --- | --- |');
	for (const [name, v] of Object.entries(f)) console.log(`| ${name} | ${v.wall.toFixed(1)} | ${v.cpu.toFixed(1)} | ${(v.wall / base.wall).toFixed(2)} |`);
	for (const [name, db] of [['bare + stock PostgresSaver', bareDb], ['Sophos on PostgreSQL', oursDb]] as const) {
		console.log(`\nWhere a turn's time goes, ${name} (means over the ${THREADS * TURNS} measured turns; statement time is from send to answer in this process)\n`);
		console.log(breakdownTable(db.name, THREADS * TURNS));
		console.log(`\nThe same statements by the server's clock (pg_stat_statements), ${name}\n`);
		console.log(serverTable(atWarm, atEnd, db.name, THREADS * TURNS));
	}

	const [serviceDb, socketDb] = [await createTestDatabase(server.url(), 'service'), await createTestDatabase(server.url(), 'socket')];
	const service = (env?: Record<string, string>) => serviceSide({ ollamaUrl: ollama.url, log, dir: tempDir('sophos-bench-svc-'), turns: TURNS, env });
	const services = {
		'service on PostgreSQL': await service({ DATABASE_URL: serviceDb.url, SOPHOS_INSTANCE_ID: 'bench' }),
		// Through the server's unix socket: what a service on its database's machine can use instead of loopback TCP.
		'service on PostgreSQL, unix socket': await service({ DATABASE_URL: server.socketUrl(socketDb.name), SOPHOS_INSTANCE_ID: 'bench' }),
		'service on SQLite': await service()
	};
	type Side = keyof typeof services;
	const names = Object.keys(services) as Side[];
	const through = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<Side, number[]>;
	for (let n = 0; n < SERVICE_THREADS + 1; n++) {
		for (const name of names) {
			const times = await services[name].thread();
			if (n > 0) through[name].push(...times);
		}
	}
	for (const side of Object.values(services)) await side.close();
	const svc = Object.fromEntries(names.map((name) => [name, median(through[name])])) as Record<Side, number>;
	const [svcPg, svcSocket, svcLite] = [svc['service on PostgreSQL'], svc['service on PostgreSQL, unix socket'], svc['service on SQLite']];
	console.log(`\nThe same turn through the built service (POST /api/chat, then its SSE stream to the end), ${SERVICE_THREADS} threads × ${TURNS} turns each, alternating, median\n`);
	console.log('| path | ms per turn | ÷ service on SQLite |\n| --- | --- | --- |');
	for (const name of names) console.log(`| ${name} | ${svc[name].toFixed(1)} | ${(svc[name] / svcLite).toFixed(2)} |`);
	await Promise.all([serviceDb.drop(), socketDb.drop()]);

	reportSummary('postgres-turns', [
		{
			figure: 'ms per turn on PostgreSQL, in-process',
			ours: f['Sophos on PostgreSQL'].wall.toFixed(1),
			baseline: base.wall.toFixed(1),
			goal: '≤ bare + stock PostgresSaver',
			met: f['Sophos on PostgreSQL'].wall <= base.wall
		},
		{
			figure: 'ms per tool-calling turn through the service, PostgreSQL ÷ SQLite',
			ours: `${svcPg.toFixed(1)} (${(svcPg / svcLite).toFixed(2)}×)`,
			baseline: `${svcLite.toFixed(1)} on SQLite`,
			goal: '≤ 1.3×',
			met: svcPg / svcLite <= 1.3
		},
		{
			figure: 'the same through the unix socket, PostgreSQL ÷ SQLite',
			ours: `${svcSocket.toFixed(1)} (${(svcSocket / svcLite).toFixed(2)}×)`,
			baseline: `${svcLite.toFixed(1)} on SQLite`,
			goal: ''
		},
		{ figure: 'ms per turn on SQLite, in-process', ours: f['Sophos on SQLite'].wall.toFixed(1), baseline: f['bare + stock SqliteSaver'].wall.toFixed(1), goal: '' }
	]);
	await Promise.all([bareDb.drop(), oursDb.drop()]);
} finally {
	await ollama.close();
	await server.stop();
}
