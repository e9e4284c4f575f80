import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScriptedReply } from '../test/support/model-script';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { Service, tempDir } from '../test/support/service';
import { sseMessages } from '../test/support/sse';
import { reportSummary } from './support/summary';

/**
 * The per-event cost of the LangGraph Agent Server protocol's stream beside Sophos's own SSE, in
 * the same run, on the same scripted Ollama: RUNS concurrent runs of TOKENS tokens each, started
 * and followed over HTTP (the service as its own process), once through POST /api/chat + GET
 * /api/chat, once through POST /threads/{id}/runs/stream (messages-tuple and values, as
 * agent-chat-ui asks). The service's CPU time per 1,000 token events delivered, the throughput,
 * event-loop lag and peak RSS of each.
 * Run: npm run bench -- protocol-stream [runs] [tokens]
 */
const RUNS = Number(process.argv[2] ?? 200);
const TOKENS = Number(process.argv[3] ?? 500);
const TOKEN_CHARS = 3;
const answer = Array.from({ length: TOKENS }, (_, i) => `t${String(i % 100).padStart(2, '0')}`).join('');
const dir = tempDir('sophos-bench-');
const loopLag = path.resolve('bench/support/loop-lag.mjs');

type Lag = { p50: number; p99: number; max: number; maxRssMiB: number; cpuMs: number };
type Load = { tokens: number; frames: number; seconds: number; wrong: number; lag: Lag };
type Read = { tokens: number; frames: number; text: string };

const server = await ScriptedOllama.start(() => ({ content: '' }));

/** Every reply waits at its first chunk until released; resolves once `count` have arrived. */
function heldReplies(hold: string, count: number): Promise<void> {
	let seen = 0;
	let resolve!: () => void;
	const arrived = new Promise<void>((r) => (resolve = r));
	server.script = (): ScriptedReply => {
		if (++seen === count) resolve();
		return { content: answer, chunkChars: TOKEN_CHARS, hold, holdAfterChunks: 0 };
	};
	return arrived;
}

async function readSophos(res: Response): Promise<Read> {
	const read = { tokens: 0, frames: 0, text: '' };
	for await (const e of sseMessages(res)) {
		if (e.event === 'ping') continue;
		read.frames++;
		if (e.event === 'token') {
			read.tokens++;
			read.text += e.data as string;
		}
	}
	return read;
}

async function readProtocol(res: Response): Promise<Read> {
	const read = { tokens: 0, frames: 0, text: '' };
	for await (const e of sseMessages(res)) {
		read.frames++;
		if (e.event === 'messages') {
			read.tokens++;
			read.text += (e.data as [{ content: string }])[0].content;
		}
	}
	return read;
}

async function measure(name: string, start: (service: Service, i: number) => Promise<Response>, read: (res: Response) => Promise<Read>): Promise<Load> {
	const lagFile = path.join(dir, `${name}-lag.json`);
	const service = await Service.start({
		dataDir: path.join(dir, name),
		ollamaUrl: server.url,
		env: { NODE_OPTIONS: `--import ${loopLag}`, BENCH_LOOP_LAG_FILE: lagFile, MAX_CONCURRENT_RUNS: String(RUNS), MAX_ANSWER_CHARS: '10000000',
			// One client here holds every stream (and, for a moment, the request that starts each).
			MAX_CONNECTIONS_PER_CLIENT: String(2 * RUNS + 16) }
	});
	const arrived = heldReplies(name, RUNS);
	const streams = await Promise.all(Array.from({ length: RUNS }, (_, i) => start(service, i)));
	await arrived;
	service.child.kill('SIGUSR2');
	const started = performance.now();
	const reading = streams.map(read);
	server.release(name);
	const reads = await Promise.all(reading);
	const seconds = (performance.now() - started) / 1000;
	await service.stop();
	return {
		tokens: reads.reduce((n, r) => n + r.tokens, 0),
		frames: reads.reduce((n, r) => n + r.frames, 0),
		seconds,
		wrong: reads.filter((r) => r.text !== answer).length,
		lag: JSON.parse(fs.readFileSync(lagFile, 'utf8'))
	};
}

const sophos = await measure(
	'sophos-sse',
	async (service, i) => {
		const { conversation } = await (await service.post('/api/chat', { message: `bench ${i}` })).json();
		return service.fetch(`/api/chat?conversation=${conversation}`);
	},
	readSophos
);
const protocol = await measure(
	'protocol',
	(service, i) =>
		service.post(`/threads/${randomUUID()}/runs/stream`, {
			assistant_id: 'agent',
			input: { messages: [{ type: 'human', content: `bench ${i}` }] },
			stream_mode: ['messages-tuple', 'values'],
			if_not_exists: 'create'
		}),
	readProtocol
);
await server.close();
fs.rmSync(dir, { recursive: true, force: true });

const cpuPerThousand = (l: Load) => (l.lag.cpuMs / l.tokens) * 1000;
const perSecond = (l: Load) => Math.round(l.tokens / l.seconds);
console.log(`\nThe Agent Server protocol's stream beside Sophos's own SSE: ${RUNS} concurrent runs × ${TOKENS} tokens, service as its own process`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, Node ${process.version}, load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log(`Reproduce: npm run bench -- protocol-stream ${RUNS} ${TOKENS}\n`);
console.log('| figure | protocol stream | Sophos SSE |\n| --- | --- | --- |');
const rows: [string, string, string][] = [
	['token events delivered (all frames)', `${protocol.tokens} (${protocol.frames})`, `${sophos.tokens} (${sophos.frames})`],
	['wall time', `${protocol.seconds.toFixed(2)} s`, `${sophos.seconds.toFixed(2)} s`],
	['token events per second', String(perSecond(protocol)), String(perSecond(sophos))],
	["service CPU ms per 1,000 token events", cpuPerThousand(protocol).toFixed(0), cpuPerThousand(sophos).toFixed(0)],
	['event-loop lag p50 / p99 / max', `${protocol.lag.p50} / ${protocol.lag.p99} / ${protocol.lag.max} ms`, `${sophos.lag.p50} / ${sophos.lag.p99} / ${sophos.lag.max} ms`],
	['peak RSS', `${protocol.lag.maxRssMiB} MiB`, `${sophos.lag.maxRssMiB} MiB`],
	['runs with lost or repeated text', String(protocol.wrong), String(sophos.wrong)]
];
for (const [figure, ours, baseline] of rows) console.log(`| ${figure} | ${ours} | ${baseline} |`);

reportSummary('protocol-stream', [
	{
		figure: `protocol stream, ${RUNS} runs × ${TOKENS} tokens: service CPU ms per 1,000 token events (Sophos SSE beside)`,
		ours: cpuPerThousand(protocol).toFixed(0),
		baseline: cpuPerThousand(sophos).toFixed(0),
		goal: ''
	},
	{
		figure: `protocol stream, ${RUNS} runs × ${TOKENS} tokens: runs with lost or repeated text`,
		ours: String(protocol.wrong),
		baseline: String(sophos.wrong),
		goal: '0',
		met: protocol.wrong === 0
	}
]);
