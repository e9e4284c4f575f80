/**
 * The page's sign-in sessions (POST /api/session), each known only by a digest of its id keyed with
 * SOPHOS_TOKEN (http/session-keeper.ts): a stolen database holds no usable cookie, and a new token
 * leaves every old digest unmatched. Timestamps are ISO text; a session is live until `expiresAt`.
 */
export interface SessionStorage {
	create(digest: string, expiresAt: string): Promise<void>;
	/** Whether a session with this digest exists and `now` is before its expiry. */
	isLive(digest: string, now: string): Promise<boolean>;
	/** Ends the session (logout); false when there was none. */
	delete(digest: string): Promise<boolean>;
	/** Drops the sessions expired at `now`; how many there were. */
	prune(now: string): Promise<number>;
}
