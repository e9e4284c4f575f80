/**
 * The page's sign-in sessions (issue 21). A session id is 32 random bytes, in the cookie only; the
 * database keeps an HMAC-SHA-256 of it keyed with SOPHOS_TOKEN, with its expiry. So a copy of the
 * database holds no cookie that works, and a new SOPHOS_TOKEN ends every session at once: no digest
 * made with the old key matches any more. A logout deletes the digest.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { SessionStorage } from '../storage/session-storage';

/** 30 days: "asked for once" on a machine used every day, yet not forever. */
export const SESSION_TTL_MS = 30 * 24 * 60 * 60_000;

/** base64url of 32 bytes: what a session id looks like; anything else is not looked up. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export class SessionKeeper {
	constructor(
		private readonly storage: SessionStorage,
		private readonly token: string,
		private readonly now: () => number = Date.now
	) {}

	/** A new session's id, for the cookie; it is stored only as its digest. */
	async open(): Promise<string> {
		const now = this.now();
		await this.storage.prune(new Date(now).toISOString());
		const id = randomBytes(32).toString('base64url');
		await this.storage.create(this.digest(id), new Date(now + SESSION_TTL_MS).toISOString());
		return id;
	}

	/** Whether any of `ids` (every session cookie the request carries) is a live session. */
	async isLive(ids: readonly string[]): Promise<boolean> {
		const now = new Date(this.now()).toISOString();
		for (const id of ids) if (SESSION_ID.test(id) && (await this.storage.isLive(this.digest(id), now))) return true;
		return false;
	}

	/** Ends the sessions `ids` name (logout); ids that name none are ignored. */
	async close(ids: readonly string[]): Promise<void> {
		for (const id of ids) if (SESSION_ID.test(id)) await this.storage.delete(this.digest(id));
	}

	private digest(id: string): string {
		return createHmac('sha256', this.token).update(id).digest('base64url');
	}
}
