import { fork } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EventLog } from '../src/lib/server/stream/event-log';
import type { ScriptedModelServer, ScriptedReply } from '../test/support/model-script';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { ScriptedOpenAI } from '../test/support/scripted-openai';
import { Service, tempDir } from '../test/support/service';
import { sseMessages } from '../test/support/sse';
import { reportSummary } from './support/summary';

/**
 * The token path under load, for each provider (Ollama, and an OpenAI-compatible server), each
 * figure beside bare LangGraph.js (ChatOllama or ChatOpenAI, the stock SqliteSaver, the messages
 * stream mode, read in its own process) on the same scripted server:
 * - RUNS concurrent runs of TOKENS tokens each, through the HTTP service (its own process) to SSE
 *   subscribers here: events per second delivered, event-loop lag and peak RSS of the service;
 * - one run streaming LONG tokens (a long reasoning trace): event-loop lag, and GET /api/healthz
 *   polled beside it;
 * - the replay log alone, in this process: the longest publish of a LONG-token answer, best of
 *   PUBLISH_REPEATS (a pause by the OS or a collection lands in some publish of any one repeat).
 * Run: npx tsx bench/service-streaming.ts [runs] [tokens] [long] [providers]; `providers` is
 * `ollama`, `openai` or both (the default), comma-separated, to measure one provider's path alone.
 */
const RUNS = Number(process.argv[2] ?? 200);
const TOKENS = Number(process.argv[3] ?? 500);
const LONG = Number(process.argv[4] ?? 100_000);
const PROVIDERS = (process.argv[5] ?? 'ollama,openai').split(',');
if (PROVIDERS.some((p) => p !== 'ollama' && p !== 'openai')) throw new Error(`Providers are ollama and openai, comma-separated; got ${process.argv[5]}`);
/** SSE_BUFFER_EVENTS's default: the log starts merging past it. */
const BUFFER_EVENTS = 10_000;
/** How often the long-answer case asks for health, and how long one answer may take before it counts as failed. */
const HEALTH_EVERY_MS = 10;
const HEALTH_TIMEOUT_MS = 5_000;
const PUBLISH_REPEATS = 3;

/** Tokens of three characters, one per streamed chunk. */
const TOKEN_CHARS = 3;
const answerOf = (tokens: number) => Array.from({ length: tokens }, (_, i) => `t${String(i % 100).padStart(2, '0')}`).join('');
const answer = answerOf(TOKENS);
const longAnswer = answerOf(LONG);
const dir = tempDir('sophos-bench-');
const loopLag = path.resolve('bench/support/loop-lag.mjs');

/** From loop-lag.mjs; cpuMs counts from the start of the load to the process's exit. */
type Lag = { p50: number; p99: number; max: number; maxRssMiB: number; cpuMs: number };
type Load = { events: number; seconds: number; wrong: number; duplicates: number; lag: Lag };

/** A script whose replies each wait at their first chunk until `release(hold)`; `arrived` once `count` came. */
function heldReplies(server: ScriptedModelServer, hold: string, content: string, count: number): Promise<void> {
	let seen = 0;
	let resolve!: () => void;
	const arrived = new Promise<void>((r) => (resolve = r));
	server.script = (): ScriptedReply => {
		if (++seen === count) resolve();
		return { content, chunkChars: TOKEN_CHARS, hold, holdAfterChunks: 0 };
	};
	return arrived;
}

/** A provider's scripted server, and the name bare-streaming.ts knows its client by. */
type Provider = { label: string; server: ScriptedModelServer & { url: string }; client: 'ollama' | 'openai' };

async function startService(provider: Provider, name: string): Promise<{ service: Service; lagFile: string }> {
	const lagFile = path.join(dir, `${name}-lag.json`);
	const service = await Service.start({
		dataDir: path.join(dir, name),
		// Every run at once is the load this bench measures, past the default cap of 32; one client
		// here holds every stream (and, for a moment, the request that starts each) and the health poller.
		env: {
			...provider.server.serviceEnv(),
			NODE_OPTIONS: `--import ${loopLag}`,
			BENCH_LOOP_LAG_FILE: lagFile,
			MAX_CONCURRENT_RUNS: String(RUNS),
			MAX_ANSWER_CHARS: '10000000',
			MAX_CONNECTIONS_PER_CLIENT: String(2 * RUNS + 16)
		}
	});
	return { service, lagFile };
}

async function followSse(res: Response, expected: string): Promise<{ events: number; wrong: boolean; duplicates: number }> {
	let text = '';
	let events = 0;
	let gaps = 0;
	let duplicates = 0;
	let last = 0;
	for await (const e of sseMessages(res)) {
		// Pings carry no id by contract; a run longer than 15 s gets them.
		if (e.event === 'ping') continue;
		events++;
		const id = Number(e.id);
		if (id <= last) duplicates++;
		else if (id !== last + 1) gaps++;
		last = Math.max(last, id);
		if (e.event === 'token') text += e.data as string;
	}
	return { events, wrong: text !== expected || gaps > 0, duplicates };
}

/** `runs` runs of `content` through the service, each followed over SSE from before its first token. */
async function throughService(
	provider: Provider,
	name: string,
	runs: number,
	content: string,
	beside?: (service: Service) => () => Promise<void>
) {
	const { service, lagFile } = await startService(provider, name);
	const arrived = heldReplies(provider.server, name, content, runs);
	const streams = await Promise.all(
		Array.from({ length: runs }, async (_, i) => {
			const { conversation } = await (await service.post('/api/chat', { message: `bench ${i}` })).json();
			return service.fetch(`/api/chat?conversation=${conversation}`);
		})
	);
	await arrived;
	service.child.kill('SIGUSR2');
	const stop = beside?.(service);
	const started = performance.now();
	const following = streams.map((res) => followSse(res, content));
	provider.server.release(name);
	const results = await Promise.all(following);
	const seconds = (performance.now() - started) / 1000;
	await stop?.();
	await service.stop();
	const load: Load = {
		events: results.reduce((n, r) => n + r.events, 0),
		seconds,
		wrong: results.filter((r) => r.wrong).length,
		duplicates: results.reduce((n, r) => n + r.duplicates, 0),
		lag: JSON.parse(fs.readFileSync(lagFile, 'utf8'))
	};
	return load;
}

/** The same load on bare LangGraph, in a child process of its own. */
async function bare(provider: Provider, name: string, runs: number, content: string): Promise<Load> {
	const lagFile = path.join(dir, `${name}-lag.json`);
	const arrived = heldReplies(provider.server, name, content, runs);
	const args = [provider.client, provider.server.url, String(runs), path.join(dir, `${name}.db`)];
	const child = fork(path.resolve('bench/support/bare-streaming.ts'), args, {
		execArgv: ['--import', 'tsx', '--import', loopLag],
		env: { ...process.env, BENCH_LOOP_LAG_FILE: lagFile }
	});
	const exited = once(child, 'exit');
	child.send({ answer: content });
	await arrived;
	const reset = once(child, 'message');
	child.kill('SIGUSR2');
	await reset;
	const started = performance.now();
	const report = once(child, 'message') as Promise<[{ events: number; wrong: number }]>;
	provider.server.release(name);
	const [{ events, wrong }] = await report;
	const seconds = (performance.now() - started) / 1000;
	await exited;
	return { events, seconds, wrong, duplicates: 0, lag: JSON.parse(fs.readFileSync(lagFile, 'utf8')) };
}

/** Polls GET /api/healthz from a process of its own until the returned function is called. */
function pollHealth(service: Service, into: { ms: number[]; failed: number }): () => Promise<void> {
	const poller = fork(path.resolve('bench/support/health-poller.mjs'), [
		`${service.url}/api/healthz`,
		String(HEALTH_EVERY_MS),
		String(HEALTH_TIMEOUT_MS)
	]);
	const report = once(poller, 'message') as Promise<[{ ms: number[]; failed: number }]>;
	return async () => {
		poller.send({ stop: true });
		const [{ ms, failed }] = await report;
		into.ms.push(...ms);
		into.failed += failed;
	};
}

/**
 * The replay log alone: every publish of a LONG-token answer timed, with one live subscriber; the
 * process's CPU time beside the wall time, since other work on the machine can pause this process
 * mid-publish (the CPU time counts V8's collector threads too).
 */
function longestPublish(): { wallMs: number; cpuMs: number; totalMs: number } {
	const log = new EventLog(BUFFER_EVENTS);
	log.follow(0, () => {});
	let wallMs = 0;
	let cpuMs = 0;
	const started = performance.now();
	for (let i = 0; i < LONG; i++) {
		const wall = performance.now();
		const cpu = process.cpuUsage();
		log.publish({ event: 'token', data: longAnswer.slice(i * TOKEN_CHARS, (i + 1) * TOKEN_CHARS) });
		const used = process.cpuUsage(cpu);
		wallMs = Math.max(wallMs, performance.now() - wall);
		cpuMs = Math.max(cpuMs, (used.user + used.system) / 1000);
	}
	return { wallMs, cpuMs, totalMs: performance.now() - started };
}

// First, while this process's heap is small: a collection of a large heap would land in some publish.
const publishes = Array.from({ length: PUBLISH_REPEATS }, longestPublish);
const publish = publishes.reduce((best, p) => (p.wallMs < best.wallMs ? p : best));

const providers: Provider[] = [
	...(PROVIDERS.includes('ollama') ? [{ label: 'Ollama', server: await ScriptedOllama.start(() => ({ content: '' })), client: 'ollama' as const }] : []),
	...(PROVIDERS.includes('openai') ? [{ label: 'OpenAI-compatible', server: await ScriptedOpenAI.start(() => ({ content: '' })), client: 'openai' as const }] : [])
];

/** Both loads through one provider, each beside bare LangGraph with that provider's client. */
async function measure(provider: Provider) {
	const tag = provider.client;
	const load = { ours: await throughService(provider, `${tag}-load`, RUNS, answer), bare: await bare(provider, `${tag}-bare-load`, RUNS, answer) };
	const health = { ms: [] as number[], failed: 0 };
	const long = {
		ours: await throughService(provider, `${tag}-long`, 1, longAnswer, (service) => pollHealth(service, health)),
		bare: await bare(provider, `${tag}-bare-long`, 1, longAnswer)
	};
	const sorted = [...health.ms].sort((a, b) => a - b);
	return {
		provider,
		load,
		long,
		health: { ...health, p99: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN, max: sorted.at(-1) ?? NaN }
	};
}

const results: Awaited<ReturnType<typeof measure>>[] = [];
for (const provider of providers) results.push(await measure(provider));
await Promise.all(providers.map((p) => p.server.close()));
fs.rmSync(dir, { recursive: true, force: true });

const perSecond = (l: Load) => Math.round(l.events / l.seconds);
const cpuPerThousand = (l: Load) => ((l.lag.cpuMs / l.events) * 1000).toFixed(0);
const lagOf = (l: Load) => `${l.lag.p99} / ${l.lag.max} ms`;
const ratioOf = (r: (typeof results)[number]) => perSecond(r.load.ours) / perSecond(r.load.bare);

console.log(`\nThe token path: ${RUNS} concurrent runs × ${TOKENS} tokens, and 1 run × ${LONG} tokens, over HTTP/SSE (service as its own process)`);
console.log('beside bare LangGraph.js + the same client (ChatOllama, ChatOpenAI) + stock SqliteSaver, in-process, on the same scripted server');
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`Reproduce: npx tsx bench/service-streaming.ts ${RUNS} ${TOKENS} ${LONG} ${PROVIDERS.join(',')}\n`);
console.log('| figure | Sophos | bare LangGraph | goal |\n| --- | --- | --- | --- |');
for (const { provider, load, long, health } of results) {
	const p = provider.label;
	const rows: [string, string, string, string][] = [
		[`${p}, ${RUNS} × ${TOKENS}: events delivered`, String(load.ours.events), String(load.bare.events), ''],
		[`${p}, ${RUNS} × ${TOKENS}: wall time`, `${load.ours.seconds.toFixed(2)} s`, `${load.bare.seconds.toFixed(2)} s`, ''],
		[`${p}, ${RUNS} × ${TOKENS}: events per second`, String(perSecond(load.ours)), String(perSecond(load.bare)), '≥ 0.6× bare'],
		[`${p}, ${RUNS} × ${TOKENS}: ÷ bare LangGraph`, `${(perSecond(load.ours) / perSecond(load.bare)).toFixed(2)}×`, '1.00×', '≥ 0.6×'],
		[`${p}, ${RUNS} × ${TOKENS}: CPU ms per 1,000 events, the process's own`, cpuPerThousand(load.ours), cpuPerThousand(load.bare), ''],
		[`${p}, ${RUNS} × ${TOKENS}: event-loop lag p50 / p99 / max`, `${load.ours.lag.p50} / ${lagOf(load.ours)}`, `${load.bare.lag.p50} / ${lagOf(load.bare)}`, 'p99 < 20 ms, max < 50 ms'],
		[`${p}, ${RUNS} × ${TOKENS}: peak RSS`, `${load.ours.lag.maxRssMiB} MiB`, `${load.bare.lag.maxRssMiB} MiB`, '≤ 300 MiB'],
		[`${p}, ${RUNS} × ${TOKENS}: runs with lost text or id gaps, duplicated events`, `${load.ours.wrong}, ${load.ours.duplicates}`, `${load.bare.wrong}, –`, '0, 0'],
		[`${p}, 1 × ${LONG}: wall time`, `${long.ours.seconds.toFixed(2)} s`, `${long.bare.seconds.toFixed(2)} s`, ''],
		[`${p}, 1 × ${LONG}: event-loop lag p50 / p99 / max`, `${long.ours.lag.p50} / ${lagOf(long.ours)}`, `${long.bare.lag.p50} / ${lagOf(long.bare)}`, ''],
		[`${p}, 1 × ${LONG}: GET /api/healthz p99 / max, failed`, `${health.p99.toFixed(1)} / ${health.max.toFixed(1)} ms, ${health.failed} of ${health.ms.length}`, '–', 'p99 < 50 ms'],
		[`${p}, 1 × ${LONG}: peak RSS`, `${long.ours.lag.maxRssMiB} MiB`, `${long.bare.lag.maxRssMiB} MiB`, ''],
		[`${p}, 1 × ${LONG}: runs with lost text or id gaps`, String(long.ours.wrong), String(long.bare.wrong), '0']
	];
	for (const [figure, ours, baseline, goal] of rows) console.log(`| ${figure} | ${ours} | ${baseline} | ${goal} |`);
}
console.log(
	`| replay log alone, ${LONG} tokens: longest publish (wall / CPU), all publishes; best of ${PUBLISH_REPEATS} (each) | ` +
		`${publish.wallMs.toFixed(2)} / ${publish.cpuMs.toFixed(2)} ms, ${publish.totalMs.toFixed(0)} ms (${publishes.map((p) => p.wallMs.toFixed(1)).join(', ')}) | – | < 5 ms |`
);

reportSummary('service-streaming', [
	...results.flatMap((r) => {
		const many = `${r.provider.label}, ${RUNS} runs × ${TOKENS} tokens over HTTP/SSE`;
		const one = `${r.provider.label}, 1 run × ${LONG} tokens`;
		const { load, long, health } = r;
		return [
			{ figure: `${many}: events per second`, ours: String(perSecond(load.ours)), baseline: String(perSecond(load.bare)), goal: '≥ 0.6× bare', met: ratioOf(r) >= 0.6 },
			{ figure: `${many}: CPU ms per 1,000 events`, ours: cpuPerThousand(load.ours), baseline: cpuPerThousand(load.bare), goal: '' },
			{
				figure: `${many}: event-loop lag p99 / max`,
				ours: lagOf(load.ours),
				baseline: lagOf(load.bare),
				goal: 'p99 < 20 ms, max < 50 ms',
				met: load.ours.lag.p99 < 20 && load.ours.lag.max < 50
			},
			{ figure: `${many}: peak RSS`, ours: `${load.ours.lag.maxRssMiB} MiB`, baseline: `${load.bare.lag.maxRssMiB} MiB`, goal: '≤ 300 MiB', met: load.ours.lag.maxRssMiB <= 300 },
			{
				figure: `${many}: lost / duplicated events`,
				ours: `${load.ours.wrong} / ${load.ours.duplicates}`,
				baseline: `${load.bare.wrong} / –`,
				goal: '0 / 0',
				met: load.ours.wrong + load.ours.duplicates === 0
			},
			{ figure: `${one}: event-loop lag p99 / max`, ours: lagOf(long.ours), baseline: lagOf(long.bare), goal: '' },
			{ figure: `${one}: GET /api/healthz p99`, ours: `${health.p99.toFixed(1)} ms`, baseline: '–', goal: '< 50 ms', met: health.p99 < 50 }
		];
	}),
	{
		figure: `1 run × ${LONG} tokens: longest publish (replay log alone, best of ${PUBLISH_REPEATS}), wall / CPU`,
		ours: `${publish.wallMs.toFixed(2)} / ${publish.cpuMs.toFixed(2)} ms`,
		baseline: '–',
		goal: '< 5 ms',
		met: publish.wallMs < 5
	}
]);
