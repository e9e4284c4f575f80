import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkpointAfterDeletion, openDatabase } from '../../../src/lib/server/sqlite/database';
import { ensurePrivateDir, ensurePrivateFile, restrictFile } from '../../../src/lib/server/private-files';

const modeOf = (p: string) => fs.statSync(p).mode & 0o777;

describe('private files', () => {
	let dir: string;
	let umask: number;
	beforeEach(() => {
		// The usual umask, under which files would otherwise come out readable by everyone.
		umask = process.umask(0o022);
		dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-private-'));
	});
	afterEach(() => {
		process.umask(umask);
	});

	it('creates directories 0700, every level it creates, and leaves an existing one as it is', () => {
		ensurePrivateDir(path.join(dir, 'a', 'b'));
		expect(modeOf(path.join(dir, 'a'))).toBe(0o700);
		expect(modeOf(path.join(dir, 'a', 'b'))).toBe(0o700);
		fs.mkdirSync(path.join(dir, 'shared'), { mode: 0o755 });
		ensurePrivateDir(path.join(dir, 'shared'));
		expect(modeOf(path.join(dir, 'shared'))).toBe(0o755);
	});

	it('creates a file 0600, narrows one left 0644, keeps what it holds, and skips one that is missing', () => {
		const file = path.join(dir, 'f');
		ensurePrivateFile(file);
		expect(modeOf(file)).toBe(0o600);
		fs.writeFileSync(file, 'kept');
		fs.chmodSync(file, 0o644);
		ensurePrivateFile(file);
		expect([modeOf(file), fs.readFileSync(file, 'utf8')]).toEqual([0o600, 'kept']);
		fs.chmodSync(file, 0o664);
		restrictFile(file);
		expect(modeOf(file)).toBe(0o600);
		restrictFile(path.join(dir, 'missing'));
		expect(fs.existsSync(path.join(dir, 'missing'))).toBe(false);
	});

	it('opens the database 0600 in a 0700 directory, its WAL and shared memory too', () => {
		const file = path.join(dir, 'data', 'sophos.db');
		const db = openDatabase(file);
		db.exec('CREATE TABLE t (x TEXT); INSERT INTO t VALUES (1)');
		expect(modeOf(path.join(dir, 'data'))).toBe(0o700);
		for (const f of [file, `${file}-wal`, `${file}-shm`]) expect(modeOf(f), f).toBe(0o600);
		expect(db.pragma('secure_delete', { simple: true })).toBe(1);
		db.close();
	});

	it('narrows the files of a database an older version left readable', () => {
		const file = path.join(dir, 'sophos.db');
		openDatabase(file).close();
		fs.writeFileSync(`${file}-wal`, '');
		fs.writeFileSync(`${file}-shm`, '');
		for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.chmodSync(f, 0o644);
		openDatabase(file).close();
		for (const f of [file, `${file}-wal`, `${file}-shm`].filter((f) => fs.existsSync(f))) expect(modeOf(f), f).toBe(0o600);
	});

	it('leaves no deleted text in the file or its WAL once the deletion is checkpointed', () => {
		const file = path.join(dir, 'sophos.db');
		const db = openDatabase(file);
		const marker = 'ZEBRA-ORCHID-7731';
		db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)');
		const insert = db.prepare('INSERT INTO notes (body) VALUES (?)');
		for (let i = 0; i < 50; i++) insert.run(`${marker} ${i} ${'x'.repeat(200)}`);
		db.pragma('wal_checkpoint(PASSIVE)');
		const onDisk = () => [file, `${file}-wal`].map((f) => fs.readFileSync(f).includes(marker));
		expect(onDisk()).toContain(true);
		db.exec('DELETE FROM notes');
		const lines: string[] = [];
		checkpointAfterDeletion(db, (l) => lines.push(l));
		expect(onDisk()).toEqual([false, false]);
		expect(fs.statSync(`${file}-wal`).size).toBe(0);
		expect(lines).toEqual([]);
		db.close();
	});
});
