/**
 * The `host:port` list the service hands its fetch server as `${SOPHOS_PROTECTED_HOSTS}` (the shipped
 * config/mcp.json passes it on as FETCH_PROTECTED_HOSTS): Sophos's own listen address and every model
 * server's. Fetch refuses them unless FETCH_ALLOWED_HOSTS names them with their port, so a page that
 * steers the agent cannot make it read Sophos's API or a model server (issue 21). Pure.
 */
export function fetchProtectedHosts(listen: { HOST: string; PORT: number }, modelUrls: readonly string[]): string {
	const entries = new Set<string>();
	// PORT=0 takes a free port the settings cannot know; the guard then rests on the port rule alone.
	if (listen.PORT !== 0) entries.add(`${bracketed(listen.HOST)}:${listen.PORT}`);
	for (const raw of modelUrls) {
		const url = new URL(raw);
		entries.add(`${url.hostname}:${url.port || (url.protocol === 'https:' ? 443 : 80)}`);
	}
	return [...entries].join(',');
}

// URL.hostname already brackets an IPv6 address; HOST is written bare (`::`).
function bracketed(host: string): string {
	return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
