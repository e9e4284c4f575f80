import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { runDataTool } from '../support/data-tools';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service, tempDir } from '../support/service';
import { MIGRATIONS } from '../../src/lib/server/sqlite/migrations';
import { describeFile } from '../../src/lib/server/portable/backup-manifest';
import { followRun } from '../support/sse';

const fixtures = path.resolve(import.meta.dirname, '../fixtures/upgrade');
const ENTITY = { name: 'Ada', entityType: 'person', observations: ['likes tea'] };

/** "remember" saves Ada to the memory server and answers; anything else streams an answer held after two chunks. */
const script = (request: Parameters<Parameters<typeof ScriptedOllama.start>[0]>[0]) => {
	const { user, after } = currentTurn(request);
	if (user === 'remember Ada') {
		return after.length === 0 ? { toolCalls: [{ name: 'memory__create_entities', arguments: { entities: [ENTITY] } }] } : { content: 'Saved.' };
	}
	return { content: 'A long answer that streams while the backup is taken.', holdAfterChunks: 2, hold: 'streaming' };
};

const envOf = (dataDir: string) => ({ DATABASE_PATH: path.join(dataDir, 'sophos.db'), MEMORY_FILE_PATH: path.join(dataDir, 'memory.jsonl') });
const sha = (file: string) => fs.readFileSync(file).toString('base64');

/** Issue 25: a consistent copy of a running service's data, and a restore that refuses what it must. */
describe('backup and restore (SQLite)', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await ollama?.close();
		await service?.stop();
	});

	it('backs up during a streaming run, and the restore opens, passes integrity_check and serves; the run comes back interrupted and resumable', async () => {
		ollama = await ScriptedOllama.start(script);
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir });
		const saved = (await (await service.post('/api/chat', { message: 'remember Ada' })).json()).conversation as string;
		await followRun(service.url, saved);
		const savedView = await (await service.fetch(`/api/conversations/${saved}`)).json();
		const streaming = (await (await service.post('/api/chat', { message: 'tell me a long story' })).json()).conversation as string;
		await ollama.held('streaming');

		const backupDir = path.join(tempDir(), 'backup');
		const backup = await runDataTool('backup', [backupDir], envOf(dataDir));
		expect(backup.stderr).toBe('');
		expect(backup.code).toBe(0);
		const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
		expect(manifest).toMatchObject({ format: 'sophos-backup', formatVersion: 1, schemaVersion: MIGRATIONS.length, counts: { conversations: 2, runs: 2 } });
		expect(manifest.memory.name).toBe('memory.jsonl');
		expect(fs.readdirSync(backupDir).sort()).toEqual(['manifest.json', 'memory.jsonl', 'sophos.db']);

		// The service kept running: the held run finishes there.
		ollama.release('streaming');
		await followRun(service.url, streaming);
		const runs = (await (await service.fetch(`/api/conversations/${streaming}/runs`)).json()).runs;
		expect(runs[0].status).toBe('completed');
		await service.stop();

		const restoredDir = tempDir();
		const restore = await runDataTool('restore', [backupDir], envOf(restoredDir));
		expect(restore.stderr).toBe('');
		expect(restore.code).toBe(0);
		const db = new Database(envOf(restoredDir).DATABASE_PATH);
		expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
		db.close();
		expect(fs.readFileSync(envOf(restoredDir).MEMORY_FILE_PATH, 'utf8')).toContain('likes tea');

		service = await Service.start({ ollamaUrl: ollama.url, dataDir: restoredDir });
		expect(await (await service.fetch(`/api/conversations/${saved}`)).json()).toEqual(savedView);
		const restored = await (await service.fetch(`/api/conversations/${streaming}`)).json();
		expect(restored.resumable).toBe(true);
		const restoredRuns = (await (await service.fetch(`/api/conversations/${streaming}/runs`)).json()).runs;
		expect(restoredRuns.map((r: { status: string }) => r.status)).toEqual(['interrupted']);
		expect((await service.post('/api/chat', { conversation: streaming, resume: true })).status).toBe(200);
		ollama.release('streaming');
		await followRun(service.url, streaming);
		const resumed = (await (await service.fetch(`/api/conversations/${streaming}/runs`)).json()).runs;
		expect(resumed[0]).toMatchObject({ status: 'completed', trigger: 'resume' });

		// Over the running service's file: refused, even with --overwrite, and the file is unchanged.
		const before = sha(envOf(restoredDir).DATABASE_PATH);
		const over = await runDataTool('restore', [backupDir], envOf(restoredDir));
		expect(over.code).toBe(1);
		expect(over.stderr).toMatch(/sophos\.db exists: restore over it with --overwrite/);
		const forced = await runDataTool('restore', [backupDir, '--overwrite'], envOf(restoredDir));
		expect(forced.code).toBe(1);
		expect(forced.stderr).toMatch(/is open in a running Sophos/);
		expect(sha(envOf(restoredDir).DATABASE_PATH)).toBe(before);

		// Stopped, --overwrite puts the backup's state back.
		await service.stop();
		service = undefined;
		const overwritten = await runDataTool('restore', [backupDir, '--overwrite'], envOf(restoredDir));
		expect(overwritten.code).toBe(0);
		service = await Service.start({ ollamaUrl: ollama.url, dataDir: restoredDir });
		expect((await (await service.fetch(`/api/conversations/${streaming}/runs`)).json()).runs.map((r: { status: string }) => r.status)).toEqual(['interrupted']);
	});

	it('refuses a damaged backup, one of a newer schema or whose manifest misstates it, a restore over a memory file, and a backup into a directory that is not empty or of no database, writing nothing', async () => {
		ollama = await ScriptedOllama.start(script);
		const dataDir = tempDir();
		service = await Service.start({ ollamaUrl: ollama.url, dataDir });
		await followRun(service.url, (await (await service.post('/api/chat', { message: 'remember Ada' })).json()).conversation);
		const backupDir = path.join(tempDir(), 'backup');
		expect((await runDataTool('backup', [backupDir], envOf(dataDir))).code).toBe(0);
		const again = await runDataTool('backup', [backupDir], envOf(dataDir));
		expect(again.code).toBe(1);
		expect(again.stderr).toMatch(/is not empty/);

		const broken = path.join(tempDir(), 'broken');
		fs.cpSync(backupDir, broken, { recursive: true });
		const file = path.join(broken, 'sophos.db');
		const bytes = fs.readFileSync(file);
		bytes[bytes.length - 100] = bytes[bytes.length - 100]! ^ 0xff;
		fs.writeFileSync(file, bytes);
		const target = tempDir();
		const damaged = await runDataTool('restore', [broken], envOf(target));
		expect(damaged.code).toBe(1);
		expect(damaged.stderr).toMatch(/sophos\.db in .* does not match its checksum in manifest\.json: the backup is damaged/);

		// A backup a newer Sophos made: its file at schema 99, the manifest saying so with the file's checksum.
		const newer = path.join(tempDir(), 'newer');
		fs.cpSync(backupDir, newer, { recursive: true });
		const newerFile = new Database(path.join(newer, 'sophos.db'));
		newerFile.pragma('user_version = 99');
		newerFile.close();
		const manifestFile = path.join(newer, 'manifest.json');
		const manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
		const database = describeFile(newer, 'sophos.db');
		fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, schemaVersion: 99, database }));
		const tooNew = await runDataTool('restore', [newer], envOf(target));
		expect(tooNew.code).toBe(1);
		expect(tooNew.stderr).toMatch(/schema version 99 is newer than this Sophos knows/);
		// A manifest edited to claim an older schema than its file holds: refused, not restored.
		fs.writeFileSync(manifestFile, JSON.stringify({ ...manifest, database }));
		const claimed = await runDataTool('restore', [newer], envOf(target));
		expect(claimed.code).toBe(1);
		expect(claimed.stderr).toMatch(new RegExp(`sophos\\.db has schema version 99, its manifest says ${MIGRATIONS.length}`));

		// A memory file where the backup's would go is not overwritten either.
		const withMemory = tempDir();
		fs.writeFileSync(envOf(withMemory).MEMORY_FILE_PATH, '{"type":"entity","name":"Kept"}\n');
		const memoryThere = await runDataTool('restore', [backupDir], envOf(withMemory));
		expect(memoryThere.code).toBe(1);
		expect(memoryThere.stderr).toMatch(/memory\.jsonl exists: restore over it with --overwrite/);
		expect(fs.readdirSync(withMemory)).toEqual(['memory.jsonl']);
		expect(fs.readFileSync(envOf(withMemory).MEMORY_FILE_PATH, 'utf8')).toContain('Kept');

		const notBackup = await runDataTool('restore', [tempDir()], envOf(target));
		expect(notBackup.code).toBe(1);
		expect(notBackup.stderr).toMatch(/not a Sophos backup/);
		expect(fs.readdirSync(target)).toEqual([]);

		const nothing = path.join(tempDir(), 'nothing');
		const noFile = await runDataTool('backup', [nothing], envOf(tempDir()));
		expect(noFile.code).toBe(1);
		expect(noFile.stderr).toMatch(/^Refused: no SQLite file at DATABASE_PATH \(.*sophos\.db\): nothing to back up\n$/);
		expect(fs.existsSync(nothing)).toBe(false);
	});

	it('restores a backup of an earlier layout, upgrading it, and serves its conversations', async () => {
		ollama = await ScriptedOllama.start(script);
		const dataDir = tempDir();
		fs.copyFileSync(path.join(fixtures, 'v1-stock.sqlite'), envOf(dataDir).DATABASE_PATH);
		const held = new Database(envOf(dataDir).DATABASE_PATH, { readonly: true });
		const conversations = held.prepare('SELECT id, title FROM conversations ORDER BY id').all();
		held.close();
		expect(conversations.length).toBeGreaterThan(0);
		const backupDir = path.join(tempDir(), 'backup');
		expect((await runDataTool('backup', [backupDir], envOf(dataDir))).code).toBe(0);
		expect(JSON.parse(fs.readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'))).toMatchObject({ schemaVersion: 1, memory: null });

		const restoredDir = tempDir();
		const restore = await runDataTool('restore', [backupDir], envOf(restoredDir));
		expect(restore.stderr).toBe('');
		expect(restore.code).toBe(0);
		expect(restore.stdout).toMatch(new RegExp(`upgraded from schema 1 to ${MIGRATIONS.length}; integrity_check ok`));
		service = await Service.start({ ollamaUrl: ollama.url, dataDir: restoredDir });
		const listed = (await (await service.fetch('/api/conversations')).json()).conversations as { id: string; title: string }[];
		expect(listed.map(({ id, title }) => ({ id, title })).sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual(conversations);
		for (const { id } of listed) expect((await service.fetch(`/api/conversations/${id}`)).status).toBe(200);
	});
});
