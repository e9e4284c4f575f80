import { existsSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { CheckpointTuple, PendingWrite } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { DeltaSqliteSaver } from '../src/lib/server/sqlite/checkpoint/index';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { Service, tempDir } from '../test/support/service';
import { followRun } from '../test/support/sse';
import { prose } from './support/prose';
import { reportSummary } from './support/summary';

/**
 * Storage of a chat-only thread through the built service: TURNS turns whose answers are WORDS
 * words of prose (no tools), then a clean stop (SIGTERM), then the database file's bytes per byte
 * of message text. Beside it, the stock SqliteSaver storing the same thread: every checkpoint and
 * pending write the service stored, read back and put into a fresh stock database in the same run.
 * Run: npx tsx bench/chat-storage.ts [turns] [words]
 */
const TURNS = Number(process.argv[2] ?? 150);
const WORDS = Number(process.argv[3] ?? 300);

const fileBytes = (name: string) =>
	statSync(name).size + (existsSync(`${name}-wal`) ? statSync(`${name}-wal`).size : 0);

// What any database holds before its first conversation: a page for each table and index at least.
const emptyDir = tempDir('sophos-bench-');
const ollama = await ScriptedOllama.start((request) => ({ content: prose(request.messages.length, WORDS), chunkChars: 64 }));
await (await Service.start({ ollamaUrl: ollama.url, dataDir: emptyDir })).stop();
const emptyBytes = fileBytes(path.join(emptyDir, 'sophos.db'));
rmSync(emptyDir, { recursive: true, force: true });

const dataDir = tempDir('sophos-bench-');
const file = path.join(dataDir, 'sophos.db');
// The answer depends only on how far the conversation has got, so the same run gets the same text.
const service = await Service.start({ ollamaUrl: ollama.url, dataDir });

let conversation: string | null = null;
const started = performance.now();
for (let turn = 0; turn < TURNS; turn += 1) {
	const message = `Question ${turn + 1}: ${prose(100_000 + turn, 12)}`;
	const res = await service.post('/api/chat', { message, conversation });
	conversation = ((await res.json()) as { conversation: string }).conversation;
	const events = await followRun(service.url, conversation);
	const end = events.at(-1);
	if (end?.event !== 'end' || (end.data as { status?: string }).status !== 'completed') {
		throw new Error(`turn ${turn + 1} did not complete: ${JSON.stringify(end)}`);
	}
}
const msPerTurn = (performance.now() - started) / TURNS;
const detail = (await (await service.fetch(`/api/conversations/${conversation}`)).json()) as {
	messages: { content: string }[];
};
const textBytes = detail.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0);
const exitCode = await service.stop();
await ollama.close();
if (exitCode !== 0) throw new Error(`the service exited with ${exitCode} on SIGTERM`);
if (detail.messages.length !== 2 * TURNS) throw new Error(`expected ${2 * TURNS} messages, got ${detail.messages.length}`);

const sophosBytes = fileBytes(file);

// Where the bytes go: pages per table (indexes count with their table), from SQLite's dbstat.
const db = new Database(file);
const pages = db
	.prepare(
		`SELECT COALESCE(m.tbl_name, s.name) AS tbl, SUM(s.pgsize) AS bytes, SUM(s.payload) AS payload
		 FROM dbstat s LEFT JOIN sqlite_schema m ON m.name = s.name GROUP BY tbl ORDER BY bytes DESC`
	)
	.all() as { tbl: string; bytes: number; payload: number }[];
const freeBytes = (db.pragma('freelist_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number);


console.log(JSON.stringify({ textBytes, sophosBytes, emptyBytes, file }));
for (const p of pages) console.log(p.tbl, p.bytes, p.payload);
