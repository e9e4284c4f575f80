/**
 * Pure. The remote MCP servers a person can sign in to or out of, from /api/readyz: those that
 * need sign-in (with the path that begins it) and those connected with an OAuth token.
 */
import type { Readiness } from '../protocol';

export type RemoteServer = { name: string } & ({ state: 'sign-in'; signIn: string } | { state: 'signed-in' });

export function remoteServers(readiness: Readiness | null): RemoteServer[] {
	return Object.entries(readiness?.checks?.mcp ?? {}).flatMap(([name, check]): RemoteServer[] => {
		if (check.status === 'sign-in' && check.signIn) return [{ name, state: 'sign-in', signIn: check.signIn }];
		if (check.status === 'ok' && check.oauth) return [{ name, state: 'signed-in' }];
		return [];
	});
}
