import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { Service, tempDir } from '../test/support/service';
import { sseMessages } from '../test/support/sse';
import { reportSummary } from './support/summary';

/**
 * 200 concurrent runs streaming 500 tokens each through the HTTP service to SSE subscribers:
 * events per second delivered, event-loop lag in the service, peak RSS, lost or duplicated events.
 * Run: npx tsx bench/service-streaming.ts [runs] [tokens]
 */
const RUNS = Number(process.argv[2] ?? 200);
const TOKENS = Number(process.argv[3] ?? 500);
const answer = Array.from({ length: TOKENS }, (_, i) => `t${String(i % 100).padStart(2, '0')}`).join('');

const lagFile = path.join(tempDir('sophos-bench-'), 'lag.json');
// Every reply waits at its first chunk until all subscribers are attached, so none misses its run.
const ollama = await ScriptedOllama.start(() => ({ content: answer, chunkChars: 3, hold: 'go', holdAfterChunks: 0 }));
const service = await Service.start({
	ollamaUrl: ollama.url,
	env: {
		NODE_OPTIONS: `--import ${path.resolve('bench/support/loop-lag.mjs')}`,
		BENCH_LOOP_LAG_FILE: lagFile,
		// Every run at once is the load this bench measures, past the default cap of 32.
		MAX_CONCURRENT_RUNS: String(RUNS)
	}
});

type Result = { tokens: string; events: number; gaps: number; duplicates: number };

async function subscribe(i: number): Promise<Response> {
	const { conversation } = await (await service.post('/api/chat', { message: `bench ${i}` })).json();
	return service.fetch(`/api/chat?conversation=${conversation}`);
}

async function follow(res: Response): Promise<Result> {
	let tokens = '';
	let events = 0;
	let gaps = 0;
	let duplicates = 0;
	let last = 0;
	for await (const e of sseMessages(res)) {
		events++;
		const id = Number(e.id);
		// Pings carry no id by contract; a run longer than 15 s gets them.
		if (e.event === 'ping') continue;
		if (id <= last) duplicates++;
		else if (id !== last + 1) gaps++;
		last = Math.max(last, id);
		if (e.event === 'token') tokens += e.data as string;
	}
	return { tokens, events, gaps, duplicates };
}

service.child.kill('SIGUSR2');
const streams = await Promise.all(Array.from({ length: RUNS }, (_, i) => subscribe(i)));
const started = performance.now();
const following = streams.map(follow);
ollama.release('go');
const results = await Promise.all(following);
const seconds = (performance.now() - started) / 1000;
await service.stop();
await ollama.close();
const lag = JSON.parse(fs.readFileSync(lagFile, 'utf8'));

const events = results.reduce((n, r) => n + r.events, 0);
const lost = results.filter((r) => r.tokens !== answer).length + results.reduce((n, r) => n + r.gaps, 0);
const duplicated = results.reduce((n, r) => n + r.duplicates, 0);
const rows = [
	['runs × tokens', `${RUNS} × ${TOKENS}`, ''],
	['events delivered', String(events), ''],
	['wall time', `${seconds.toFixed(2)} s`, ''],
	['events per second', Math.round(events / seconds).toString(), ''],
	['event-loop lag p50 / p99 / max', `${lag.p50} / ${lag.p99} / ${lag.max} ms`, 'p99 < 20 ms'],
	['peak RSS of the service', `${lag.maxRssMiB} MiB`, ''],
	['runs with lost text, id gaps', String(lost), '0'],
	['duplicated events', String(duplicated), '0']
];
console.log(`\nHTTP streaming: ${RUNS} concurrent runs, ${TOKENS} tokens each, SSE subscribers (service as its own process)`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`Reproduce: npx tsx bench/service-streaming.ts ${RUNS} ${TOKENS}\n`);
console.log('| figure | measured | goal |\n| --- | --- | --- |');
for (const [k, v, g] of rows) console.log(`| ${k} | ${v} | ${g} |`);
const load = `${RUNS} runs × ${TOKENS} tokens over HTTP/SSE`;
reportSummary('service-streaming', [
	{ figure: `${load}: events per second`, ours: Math.round(events / seconds).toString(), baseline: '–', goal: '' },
	{ figure: `${load}: event-loop lag p99`, ours: `${lag.p99} ms`, baseline: '–', goal: '< 20 ms', met: lag.p99 < 20 },
	{ figure: `${load}: peak RSS`, ours: `${lag.maxRssMiB} MiB`, baseline: '–', goal: '' },
	{ figure: `${load}: lost / duplicated events`, ours: `${lost} / ${duplicated}`, baseline: '–', goal: '0 / 0', met: lost + duplicated === 0 }
]);
