import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript, callsScript } from '../support/scripts';
import { Service, tempDir } from '../support/service';
import { followRun } from '../support/sse';

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

/** Issue 13: what Sophos keeps on disk is the user's alone, and what is deleted leaves the disk. */
describe('data at rest', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	afterEach(async () => {
		await service?.stop();
		await ollama?.close();
	});

	function paths() {
		const root = tempDir();
		return {
			root,
			db: path.join(root, 'data', 'sophos.db'),
			memory: path.join(root, 'memory', 'memory.jsonl')
		};
	}

	it('creates the data directories 0700 and the database, WAL, shared memory and memory file 0600', async () => {
		const p = paths();
		ollama = await ScriptedOllama.start(
			callsScript([{ name: 'memory__create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['likes tea'] }] } }])
		);
		service = await Service.start({ ollamaUrl: ollama.url, env: { DATABASE_PATH: p.db, MEMORY_FILE_PATH: p.memory } });
		const { conversation } = await (await service.post('/api/chat', { message: 'remember Ada' })).json();
		await followRun(service.url, conversation);
		expect(fs.readFileSync(p.memory, 'utf8')).toContain('likes tea');
		expect(modeOf(path.dirname(p.db))).toBe(0o700);
		expect(modeOf(path.dirname(p.memory))).toBe(0o700);
		for (const f of [p.db, `${p.db}-wal`, `${p.db}-shm`, p.memory]) expect(modeOf(f), f).toBe(0o600);
	});

	it('narrows the files an older version left readable', async () => {
		const p = paths();
		ollama = await ScriptedOllama.start(answerScript('Hi.'));
		service = await Service.start({ ollamaUrl: ollama.url, env: { DATABASE_PATH: p.db, MEMORY_FILE_PATH: p.memory } });
		await service.stop();
		fs.writeFileSync(p.memory, '');
		for (const f of [p.db, `${p.db}-wal`, `${p.db}-shm`, p.memory].filter((f) => fs.existsSync(f))) fs.chmodSync(f, 0o644);
		service = await service.restart();
		for (const f of [p.db, p.memory]) expect(modeOf(f), f).toBe(0o600);
	});

	it('leaves no trace of a deleted conversation’s text in the database file or its WAL', async () => {
		const p = paths();
		const marker = 'QUOKKA-TANGERINE-5512';
		ollama = await ScriptedOllama.start(answerScript(`Your secret ${marker} is safe with me.`));
		service = await Service.start({ ollamaUrl: ollama.url, env: { DATABASE_PATH: p.db, MEMORY_FILE_PATH: p.memory } });
		const { conversation } = await (await service.post('/api/chat', { message: `Keep ${marker} for me` })).json();
		await followRun(service.url, conversation);
		const onDisk = () => [p.db, `${p.db}-wal`].map((f) => fs.readFileSync(f).includes(marker));
		expect(onDisk()).toContain(true);
		expect((await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' })).status).toBe(204);
		expect(onDisk()).toEqual([false, false]);
	});
});
