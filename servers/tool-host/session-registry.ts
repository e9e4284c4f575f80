// The tool host's open sessions, and which of them are abandoned. A Sophos instance that is killed
// never says goodbye (no DELETE), so without this its session would stay until the host restarts.
// A live client keeps its standalone GET stream open (the SDK client opens one after initialize),
// so a session is idle only while no request of its is open, counted from when the last one ended.
import type http from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

export type Session = {
	child: string;
	transport: StreamableHTTPServerTransport;
	server: Server;
	/** Requests of this session still open, its GET stream included. */
	open: number;
	lastSeen: number;
};

/** Pure. Whether a session has had no open request for `idleMs`. */
export function isAbandoned(session: Pick<Session, 'open' | 'lastSeen'>, now: number, idleMs: number): boolean {
	return session.open === 0 && now - session.lastSeen >= idleMs;
}

export class SessionRegistry {
	private readonly sessions = new Map<string, Session>();
	private readonly sweeper: NodeJS.Timeout;

	/** Checks every half idle period (at most every 30 s), so an abandoned session goes within 1.5× `idleMs`. */
	constructor(
		private readonly idleMs: number,
		private readonly log: (line: string) => void,
		private readonly now: () => number = Date.now
	) {
		this.sweeper = setInterval(() => void this.sweep(), Math.min(idleMs / 2, 30_000));
		this.sweeper.unref();
	}

	add(id: string, session: Omit<Session, 'open' | 'lastSeen'>): void {
		this.sessions.set(id, { ...session, open: 0, lastSeen: this.now() });
	}

	get(id: string): Session | undefined {
		return this.sessions.get(id);
	}

	delete(id: string): void {
		this.sessions.delete(id);
	}

	/** Counts `res` as open on the session until it closes. */
	track(session: Session, res: http.ServerResponse): void {
		session.open++;
		res.once('close', () => {
			session.open--;
			session.lastSeen = this.now();
		});
	}

	/** The open sessions of one hosted server. */
	of(child: string): Session[] {
		return [...this.sessions.values()].filter((s) => s.child === child);
	}

	countFor(child: string): number {
		return this.of(child).length;
	}

	/** Ends every session (their open streams too); the registry is done after. */
	async closeAll(): Promise<void> {
		clearInterval(this.sweeper);
		const sessions = [...this.sessions.values()];
		this.sessions.clear();
		await Promise.all(sessions.map((s) => s.server.close().catch(() => {})));
	}

	private async sweep(): Promise<void> {
		const now = this.now();
		for (const [id, session] of this.sessions) {
			if (!isAbandoned(session, now, this.idleMs)) continue;
			this.sessions.delete(id);
			this.log(`closed abandoned session ${id} of "${session.child}"`);
			await session.server.close().catch(() => {});
		}
	}
}
