// Writes test/fixtures/upgrade/<name>.sqlite and <name>.json: a database file as an earlier release
// of Sophos left it, and what that release said about it. test/unit/migrations.test.ts and
// test/integration/upgrade.test.ts open each one with today's code.
//
//   npx tsx scripts/make-upgrade-fixtures.ts [name…]     (all of them by default)
//
// How each is made: the release's commit is exported with `git archive` into a temp directory,
// node_modules is linked from this checkout (every one of these commits' lock files resolves the
// same versions of the dependencies), and `npm run build` builds it there (kept for the next run of
// this script; delete those directories when done). Its built service then
// runs on an empty data directory with the scripted model (test/support/upgrade-scenario.ts): a
// finished conversation with a memory tool call, one killed (SIGKILL) after its tool call while its
// answer streams, and, from the release that added the queue on, one killed during its first answer
// with a message queued behind it. Before the kill the API's view is recorded (conversations,
// their messages and runs); after it, the rows of the app's tables and a hash of every checkpoint
// as the release's own saver lists them. A fixture with `after` is that database (made as above)
// after an attempt to start a later release on it (`api` is still the first release's view).

import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { ROOT, Service, tempDir } from '../test/support/service';
import { followRun } from '../test/support/sse';
import { UPGRADE_HOLDS, UPGRADE_MESSAGES, memoryOnlyConfig, upgradeScript } from '../test/support/upgrade-scenario';

type Release = {
	name: string;
	commit: string;
	/** What the file holds, in the words of today's migrations. */
	layout: string;
	/** The release has `ifBusy: "enqueue"`. */
	queue: boolean;
	/** Which saver wrote the checkpoints: the stock one, or Sophos's delta saver of that commit. */
	saver: 'stock' | 'delta';
	/** Started once more, then stopped, by this later release. */
	after?: { commit: string; saver: 'stock' | 'delta' };
};

const RELEASES: readonly Release[] = [
	{ name: 'v1-stock', commit: '8a7e11b', layout: 'user_version 1; checkpoints in the stock SqliteSaver tables', queue: false, saver: 'stock' },
	{
		name: 'v2-no-input-stock',
		commit: '603efb2',
		layout: 'user_version 2 as migration 2 first shipped (tool journal, queue, no runs.input); stock SqliteSaver tables',
		queue: true,
		saver: 'stock'
	},
	{ name: 'v2-stock', commit: '1d88758', layout: 'user_version 2 with runs.input; stock SqliteSaver tables', queue: true, saver: 'stock' },
	{
		name: 'v2-lg-deflated',
		commit: '40f307e',
		layout: 'user_version 2; lg_* tables of the delta saver as first released (a deflated flag, lg_writes with a rowid)',
		queue: true,
		saver: 'delta'
	},
	{
		name: 'v2-lg-encoded',
		commit: '7dfafd5',
		layout: 'user_version 2; lg_* tables with value encodings and write links (lg_writes WITHOUT ROWID)',
		queue: true,
		saver: 'delta'
	},
	{
		name: 'v3-lg-encoded',
		commit: 'd240eef',
		layout: 'user_version 3 (runs that wait for a person, tool approvals); lg_* tables as in v2-lg-encoded',
		queue: true,
		saver: 'delta'
	},
	{
		name: 'v2-no-input-lg-encoded',
		commit: '603efb2',
		layout:
			'a v2-no-input-stock database after a start of 7dfafd5, which imported the stock tables into lg_* and then ' +
			'failed on the missing runs.input',
		queue: true,
		saver: 'stock',
		after: { commit: '7dfafd5', saver: 'delta' }
	}
];

const FIXTURES = path.join(ROOT, 'test/fixtures/upgrade');
// Releases with approvals would otherwise pause the scenario's memory call for a person; the ones
// before ignore the variable.
const NO_APPROVALS = { TOOL_APPROVAL: 'none' };

/** The commit exported and built in the temp directory; a later run of this script reuses the build. */
function checkout(commit: string): string {
	const dir = path.join(os.tmpdir(), `sophos-release-${commit}`);
	if (fs.existsSync(path.join(dir, 'build/index.js'))) return dir;
	fs.rmSync(dir, { recursive: true, force: true });
	fs.mkdirSync(dir);
	execFileSync('sh', ['-c', `git archive ${commit} | tar -x -C "${dir}"`], { cwd: ROOT, stdio: 'inherit' });
	fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
	console.log(`building ${commit} in ${dir}`);
	execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: ['ignore', 'ignore', 'inherit'] });
	return dir;
}

async function json(service: Service, pathname: string): Promise<unknown> {
	const res = await service.fetch(pathname);
	if (!res.ok) throw new Error(`GET ${pathname}: ${res.status}`);
	return res.json();
}

async function post(service: Service, body: Record<string, unknown>): Promise<{ conversation: string }> {
	const res = await service.post('/api/chat', body);
	if (!res.ok) throw new Error(`POST /api/chat ${JSON.stringify(body)}: ${res.status} ${await res.text()}`);
	return (await res.json()) as { conversation: string };
}

/** Conversations, their messages and runs, as the running release reports them. */
async function apiView(service: Service) {
	const { conversations } = (await json(service, '/api/conversations')) as { conversations: { id: string }[] };
	const details: Record<string, unknown> = {};
	const runs: Record<string, unknown> = {};
	for (const { id } of conversations) {
		details[id] = await json(service, `/api/conversations/${id}`);
		runs[id] = await json(service, `/api/conversations/${id}/runs`);
	}
	return { conversations, details, runs };
}

/** Drives the release through the scenario and kills it mid-answer; returns the API's view. */
async function writeScenario(root: string, dataDir: string, queue: boolean) {
	const ollama = await ScriptedOllama.start(upgradeScript(true));
	const service = await Service.start({ ollamaUrl: ollama.url, dataDir, root, configDir: memoryOnlyConfig(), env: NO_APPROVALS });
	try {
		const { conversation: finished } = await post(service, { message: UPGRADE_MESSAGES.remember });
		await followRun(service.url, finished);
		await post(service, { message: UPGRADE_MESSAGES.ask, conversation: finished });
		await followRun(service.url, finished);
		const reached = ollama.held(UPGRADE_HOLDS.interrupted);
		await post(service, { message: UPGRADE_MESSAGES.interrupted });
		await reached;
		if (queue) {
			const story = ollama.held(UPGRADE_HOLDS.story);
			const { conversation } = await post(service, { message: UPGRADE_MESSAGES.story });
			await story;
			await post(service, { message: UPGRADE_MESSAGES.queued, conversation, ifBusy: 'enqueue' });
		}
		return await apiView(service);
	} finally {
		await service.kill();
		await ollama.close();
	}
}

/**
 * Starts a later release on the data directory and stops it cleanly; returns how the start went.
 * The release may fail to start on what it finds: the file is left as that failure left it.
 */
async function startOnce(root: string, dataDir: string): Promise<string> {
	const ollama = await ScriptedOllama.start(upgradeScript(false));
	try {
		const service = await Service.start({ ollamaUrl: ollama.url, dataDir, root, configDir: memoryOnlyConfig(), env: NO_APPROVALS });
		await service.stop();
		return 'started and stopped';
	} catch (e) {
		// The service's own output follows the first line; its error names the cause.
		const lines = String(e).split('\n');
		return `failed to start: ${lines.slice(1).find((line) => /^\w+Error: /.test(line)) ?? lines[0]}`;
	} finally {
		await ollama.close();
	}
}

async function checkpointHash(file: string, saver: 'stock' | 'delta', root: string) {
	const db = new Database(file);
	try {
		let reader: BaseCheckpointSaver;
		if (saver === 'stock') reader = new SqliteSaver(db);
		else {
			const release = await import(path.join(root, 'src/lib/server/checkpoint/index.ts'));
			reader = new release.DeltaSqliteSaver(db, { cacheItems: 0 });
		}
		const tuples = [];
		for await (const tuple of reader.list({})) tuples.push(tuple);
		return { count: tuples.length, sha256: createHash('sha256').update(JSON.stringify(tuples)).digest('hex') };
	} finally {
		db.close();
	}
}

function appRows(file: string) {
	const db = new Database(file, { readonly: true });
	try {
		const present = new Set(db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table'`).pluck().all() as string[]);
		const rows: Record<string, unknown[]> = {};
		for (const table of ['conversations', 'runs', 'tool_calls', 'queued_messages', 'tool_approvals', 'allowed_tools']) {
			if (present.has(table)) rows[table] = db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();
		}
		return { userVersion: db.pragma('user_version', { simple: true }) as number, rows };
	} finally {
		db.close();
	}
}

/** Folds the WAL back into the file, so the fixture is one file. */
function checkpointWal(file: string): void {
	const db = new Database(file);
	db.pragma('wal_checkpoint(TRUNCATE)');
	db.close();
}

async function make(release: Release): Promise<void> {
	console.log(`== ${release.name} (${release.commit}${release.after ? ` then ${release.after.commit}` : ''})`);
	const dataDir = tempDir('sophos-fixture-');
	const file = path.join(dataDir, 'sophos.db');
	const api = await writeScenario(checkout(release.commit), dataDir, release.queue);
	let saver = { kind: release.saver, root: checkout(release.commit) };
	let after: { commit: string; start: string } | undefined;
	checkpointWal(file);
	if (release.after) {
		after = { commit: release.after.commit, start: await startOnce(checkout(release.after.commit), dataDir) };
		saver = { kind: release.after.saver, root: checkout(release.after.commit) };
		checkpointWal(file);
	}
	const manifest = {
		name: release.name,
		commit: release.commit,
		...(after ? { after } : {}),
		layout: release.layout,
		...appRows(file),
		checkpoints: await checkpointHash(file, saver.kind, saver.root),
		api
	};
	fs.mkdirSync(FIXTURES, { recursive: true });
	fs.copyFileSync(file, path.join(FIXTURES, `${release.name}.sqlite`));
	fs.writeFileSync(path.join(FIXTURES, `${release.name}.json`), JSON.stringify(manifest, null, '\t') + '\n');
	fs.rmSync(dataDir, { recursive: true, force: true });
}

const wanted = process.argv.slice(2);
for (const release of RELEASES) if (wanted.length === 0 || wanted.includes(release.name)) await make(release);
