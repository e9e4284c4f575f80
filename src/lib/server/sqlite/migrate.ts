import type Database from 'better-sqlite3';
import { MIGRATIONS } from './migrations';

export type MigrationReport = {
	/** `user_version` before and after. */
	from: number;
	to: number;
	/** What the migrations that ran had to say, for the log. */
	notes: string[];
};

/**
 * Applies the migrations the database lacks. Refuses, changing nothing, a database written by a
 * newer Sophos (more migrations than this one knows): its tables may not be what this code expects.
 */
export function migrate(db: Database.Database): MigrationReport {
	const from = db.pragma('user_version', { simple: true }) as number;
	if (from > MIGRATIONS.length) {
		throw new Error(
			`database schema version ${from} is newer than this Sophos knows (${MIGRATIONS.length}); use a newer Sophos with this file`
		);
	}
	const notes: string[] = [];
	for (let i = from; i < MIGRATIONS.length; i += 1) {
		const { up } = MIGRATIONS[i]!;
		db.transaction(() => {
			if (typeof up === 'string') db.exec(up);
			else {
				const note = up(db);
				if (note) notes.push(note);
			}
			db.pragma(`user_version = ${i + 1}`);
		})();
	}
	return { from, to: MIGRATIONS.length, notes };
}
