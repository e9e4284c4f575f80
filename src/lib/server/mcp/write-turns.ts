/**
 * Calls that change a server's state, made one at a time. Servers such as the memory server load
 * their whole state, change it and save it: two writes in flight at once lose one of them (40
 * creates sent at once kept 13). Reads (readOnlyHint) do not wait their turn. Used by Sophos's own
 * MCP children and by the tool host (servers/tool-host/).
 */
export class WriteTurns {
	/** The last write made or waiting; each write starts when it settles, however it settled. */
	private last: Promise<unknown> = Promise.resolve();

	run<T>(write: () => Promise<T>): Promise<T> {
		const next = this.last.then(write);
		this.last = next.catch(() => {});
		return next;
	}
}
