// The migration list (db/migrations.ts) on a file of every earlier layout, each written by the
// release that had it (test/fixtures/upgrade/, made by scripts/make-upgrade-fixtures.ts): nothing
// is lost, every checkpoint reads back as that release's saver listed it, and every database ends
// with the schema a new one gets.

import { createHash } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint/index';
import { openDatabase } from '../../../src/lib/server/sqlite/database';
import { migrate } from '../../../src/lib/server/sqlite/migrate';
import { MIGRATIONS } from '../../../src/lib/server/sqlite/migrations';
import { tempDir } from '../../support/service';
import { fixtureCopy, upgradeManifests } from '../../support/upgrade-scenario';

const manifests = upgradeManifests();
const copyOf = (manifest: (typeof manifests)[number]) => path.join(fixtureCopy(manifest), 'sophos.db');

const schemaOf = (db: Database.Database) =>
	db.prepare(`SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name`).all();

describe('upgrading a database of every earlier layout', () => {
	it('has a fixture for each user_version databases in the wild are at', () => {
		expect(new Set(manifests.map((m) => m.userVersion))).toEqual(new Set([1, 2, 3]));
		expect(manifests.length).toBeGreaterThanOrEqual(7);
	});

	const fresh = openDatabase(path.join(tempDir('sophos-fresh-'), 'sophos.db'));
	const freshSchema = schemaOf(fresh);
	fresh.close();

	for (const manifest of manifests) {
		describe(`${manifest.name}: ${manifest.layout}`, () => {
			it('keeps every row of the app tables, with the columns later migrations added', () => {
				const db = openDatabase(copyOf(manifest));
				expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length);
				for (const [table, rows] of Object.entries(manifest.rows)) {
					const now = db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all() as Record<string, unknown>[];
					expect(now).toHaveLength(rows.length);
					now.forEach((row, i) => expect(row).toMatchObject(rows[i]!));
				}
				const runs = db.prepare(`SELECT * FROM runs`).all() as Record<string, unknown>[];
				for (const run of runs) expect(Object.keys(run)).toEqual(expect.arrayContaining(['trigger', 'input']));
				db.close();
			});

			it('reads every checkpoint back as the release that wrote it listed them', async () => {
				const db = openDatabase(copyOf(manifest));
				const tuples = [];
				for await (const tuple of new DeltaSqliteSaver(db, { cacheItems: 0 }).list({})) tuples.push(tuple);
				expect(tuples).toHaveLength(manifest.checkpoints.count);
				expect(createHash('sha256').update(JSON.stringify(tuples)).digest('hex')).toBe(manifest.checkpoints.sha256);
				db.close();
			});

			it('ends with the schema a new database gets', () => {
				const db = openDatabase(copyOf(manifest));
				expect(schemaOf(db)).toEqual(freshSchema);
				db.close();
			});
		});
	}
});

describe('migrate', () => {
	it('refuses a database of a newer Sophos and changes nothing', () => {
		const file = path.join(tempDir('sophos-newer-'), 'sophos.db');
		const db = new Database(file);
		db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
		expect(() => migrate(db)).toThrow(/newer than this Sophos knows/);
		expect(db.pragma('user_version', { simple: true })).toBe(MIGRATIONS.length + 1);
		expect(db.prepare(`SELECT COUNT(*) FROM sqlite_schema`).pluck().get()).toBe(0);
		db.close();
	});

	it('applies each migration in its own transaction: one that fails leaves the database at the one before', () => {
		const db = new Database(path.join(tempDir('sophos-failing-'), 'sophos.db'));
		// Migration 2 creates this table, so it fails after migration 1 has been applied.
		db.exec(`CREATE TABLE tool_calls (x)`);
		expect(() => migrate(db)).toThrow(/tool_calls already exists/);
		expect(db.pragma('user_version', { simple: true })).toBe(1);
		const tables = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`).pluck().all();
		expect(tables).toEqual(['conversations', 'runs', 'tool_calls']);
		expect(db.prepare(`SELECT name FROM pragma_table_info('runs')`).pluck().all()).not.toContain('trigger');
		db.close();
	});

	it('keys sessions and MCP sign-ins by their text alone, keeping their rows', () => {
		const db = new Database(path.join(tempDir('sophos-keyed-'), 'sophos.db'));
		const keyed = MIGRATIONS.findIndex((m) => m.name.includes('WITHOUT ROWID'));
		for (const migration of MIGRATIONS.slice(0, keyed)) {
			if (typeof migration.up === 'string') db.exec(migration.up);
			else migration.up(db);
		}
		db.pragma(`user_version = ${keyed}`);
		db.exec(`INSERT INTO sessions VALUES ('d1', '2026-12-31T00:00:00.000Z');
			INSERT INTO mcp_auth VALUES ('docs', '{"client_id":"c"}', '{"access_token":"t"}', NULL, '2026-12-01T00:00:00.000Z');
			INSERT INTO mcp_sign_ins VALUES ('s1', 'docs', 'v', 'http://127.0.0.1:1/cb', '2026-12-01T00:10:00.000Z')`);
		const rows = () => ['sessions', 'mcp_auth', 'mcp_sign_ins'].map((table) => db.prepare(`SELECT * FROM ${table}`).all());
		const before = rows();
		migrate(db);
		expect(rows()).toEqual(before);
		const withoutRowid = db.prepare(`SELECT name FROM pragma_table_list WHERE wr = 1 AND name NOT LIKE 'lg_%' ORDER BY name`).pluck().all();
		expect(withoutRowid).toEqual(['mcp_auth', 'mcp_sign_ins', 'sessions']);
		const indexes = db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name IN ('sessions', 'mcp_auth', 'mcp_sign_ins')`);
		expect(indexes.pluck().all()).toEqual(['sessions_by_expiry']);
		expect(() => db.exec(`INSERT INTO sessions VALUES ('d1', '2027-01-01T00:00:00.000Z')`)).toThrow(/UNIQUE constraint failed/);
		db.close();
	});
});
