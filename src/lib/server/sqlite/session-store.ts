import type Database from 'better-sqlite3';

/** The page's sign-in sessions by digest (storage/session-storage.ts SessionStorage) on the SQLite file. */
export class SessionStore {
	private readonly insert;
	private readonly live;
	private readonly remove;
	private readonly expired;

	constructor(db: Database.Database) {
		this.insert = db.prepare('INSERT INTO sessions (digest, expires_at) VALUES (?, ?)');
		this.live = db.prepare<[string, string], { one: number }>('SELECT 1 AS one FROM sessions WHERE digest = ? AND expires_at > ?');
		this.remove = db.prepare('DELETE FROM sessions WHERE digest = ?');
		this.expired = db.prepare('DELETE FROM sessions WHERE expires_at <= ?');
	}

	create(digest: string, expiresAt: string): void {
		this.insert.run(digest, expiresAt);
	}

	/** ISO text in UTC compares as the instants it spells. */
	isLive(digest: string, now: string): boolean {
		return this.live.get(digest, now) !== undefined;
	}

	delete(digest: string): boolean {
		return this.remove.run(digest).changes > 0;
	}

	prune(now: string): number {
		return this.expired.run(now).changes;
	}
}
