import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { openDatabase } from '../src/lib/server/sqlite/database';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { Service, tempDir } from '../test/support/service';
import { followRun } from '../test/support/sse';
import { LIST_PAGE } from '../src/lib/client/chat-controller';
import { reportSummary } from './support/summary';

/**
 * Read latency through the HTTP service: loading a 1,000-message conversation (built by 500 real
 * turns), the same with three branches (the versions the page shows), listing 10,000 conversations
 * (rows seeded into the database before the start), and the first page of that list the chat page
 * asks for.
 * Run: npx tsx bench/read-latency.ts [messages] [conversations]
 */
const MESSAGES = Number(process.argv[2] ?? 1000);
const CONVERSATIONS = Number(process.argv[3] ?? 10_000);
const SAMPLES = 200;

const dataDir = tempDir('sophos-bench-');
const db = openDatabase(path.join(dataDir, 'sophos.db'));
const insertConversation = db.prepare('INSERT INTO conversations (id, title, created_at, updated_at, message_count) VALUES (?, ?, ?, ?, 2)');
const insertRun = db.prepare("INSERT INTO runs (id, conversation_id, status, started_at, finished_at) VALUES (?, ?, 'completed', ?, ?)");
db.transaction(() => {
	for (let i = 0; i < CONVERSATIONS - 1; i++) {
		const id = randomUUID();
		const at = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
		insertConversation.run(id, `Seeded conversation ${i}`, at, at);
		insertRun.run(randomUUID(), id, at, at);
	}
})();
db.close();

const reply = 'An answer of a realistic length, a sentence or two, so that the thread has some weight to it. '.repeat(3);
const ollama = await ScriptedOllama.start(() => ({ content: reply, chunkChars: 64 }));
const service = await Service.start({ ollamaUrl: ollama.url, dataDir });

let conversation: string | null = null;
for (let turn = 0; turn < MESSAGES / 2; turn++) {
	const res = await service.post('/api/chat', { message: `Question ${turn}: tell me more.`, conversation });
	conversation = (await res.json()).conversation as string;
	await followRun(service.url, conversation);
}

async function timed(pathname: string): Promise<number[]> {
	const times: number[] = [];
	for (let i = 0; i < SAMPLES; i++) {
		const started = performance.now();
		const res = await service.fetch(pathname);
		await res.arrayBuffer();
		times.push(performance.now() - started);
	}
	return times.sort((a, b) => a - b);
}
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!.toFixed(1);

const detail = await timed(`/api/conversations/${conversation}`);
const list = await timed('/api/conversations');
const firstPage = await timed(`/api/conversations?limit=${LIST_PAGE}`);
type Message = { id: string; role: string; versions?: unknown };
const messagesOf = async (): Promise<Message[]> => (await (await service.fetch(`/api/conversations/${conversation}`)).json()).messages;
const linear = await messagesOf();
const count = linear.length;
const listed = (await (await service.fetch('/api/conversations')).json()).conversations.length;

// The same conversation with three branches: its last answer regenerated, a user message half-way
// edited, then the long branch shown again, so the page gets versions at two positions.
await service.post('/api/chat', { conversation, regenerate: linear.at(-1)!.id });
await followRun(service.url, conversation!);
const regenerated = (await messagesOf()).at(-1)!.id;
const middle = linear.filter((m) => m.role === 'user')[Math.floor(MESSAGES / 4)]!;
await service.post('/api/chat', { conversation, message: 'An edited question.', editOf: middle.id });
await followRun(service.url, conversation!);
await service.post(`/api/conversations/${conversation}/branch`, { messageId: regenerated });
const branched = await messagesOf();
if (branched.length !== count || branched.filter((m) => m.versions).length !== 2) throw new Error('the branched conversation is not as built');
const branchedDetail = await timed(`/api/conversations/${conversation}`);
await service.stop();
await ollama.close();

console.log(`\nRead latency through the HTTP service (${SAMPLES} sequential requests each)`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`);
console.log(`Reproduce: npx tsx bench/read-latency.ts ${MESSAGES} ${CONVERSATIONS}\n`);
console.log('| request | size | p50 | p99 |\n| --- | --- | --- | --- |');
console.log(`| GET /api/conversations/:id | ${count} messages | ${pct(detail, 50)} ms | ${pct(detail, 99)} ms |`);
console.log(`| GET /api/conversations/:id, 3 branches (versions at 2 messages) | ${count} messages | ${pct(branchedDetail, 50)} ms | ${pct(branchedDetail, 99)} ms |`);
console.log(`| GET /api/conversations | ${listed} conversations | ${pct(list, 50)} ms | ${pct(list, 99)} ms |`);
console.log(`| GET /api/conversations?limit=${LIST_PAGE} | first ${LIST_PAGE} of ${listed} | ${pct(firstPage, 50)} ms | ${pct(firstPage, 99)} ms |`);
reportSummary('read-latency', [
	{ figure: `GET a ${count}-message conversation, p50 / p99`, ours: `${pct(detail, 50)} / ${pct(detail, 99)} ms`, baseline: '–', goal: '' },
	{
		figure: `GET a ${count}-message conversation with 3 branches (versions at 2 messages), p50 / p99`,
		ours: `${pct(branchedDetail, 50)} / ${pct(branchedDetail, 99)} ms`,
		baseline: `${pct(detail, 50)} / ${pct(detail, 99)} ms unbranched`,
		goal: ''
	},
	{ figure: `GET the list of ${listed} conversations, p50 / p99`, ours: `${pct(list, 50)} / ${pct(list, 99)} ms`, baseline: '–', goal: '' },
	{
		figure: `GET the first ${LIST_PAGE} of ${listed} conversations (the chat page's list), p50 / p99`,
		ours: `${pct(firstPage, 50)} / ${pct(firstPage, 99)} ms`,
		baseline: '–',
		goal: ''
	}
]);
