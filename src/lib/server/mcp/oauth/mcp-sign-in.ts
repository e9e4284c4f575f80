import type { McpRefusal } from '../mcp-refusal';
import type { Toolbox } from '../toolbox';
import type { ServerSupervisor } from '../server-supervisor';
import { beginSignIn, completeSignIn, type CallbackOutcome, type CallbackQuery } from './sign-in-flow';
import type { ServerOAuth } from './server-oauth';

/**
 * What the sign-in routes ask of the runtime: begin a person's sign-in to a configured remote
 * server, take the browser's return, sign out. Refusals are values: an unknown server, one that is
 * not signed in to with OAuth by a person (stdio, its own Authorization header, or client
 * credentials), a sign-in that could not begin.
 */
export class McpSignIn {
	constructor(private readonly toolbox: Toolbox) {}

	/** The authorization server's URL to send the browser to. */
	async begin(server: string, redirectUri: string): Promise<{ authorization: URL } | McpRefusal> {
		const found = this.find(server);
		if ('refused' in found) return found;
		try {
			return { authorization: await beginSignIn(found.oauth, redirectUri) };
		} catch (e) {
			return { refused: 'mcp-sign-in-failed', server, why: (e as Error).message };
		}
	}

	/** The callback; on success the server is connected before this returns. */
	async complete(server: string, query: CallbackQuery): Promise<(CallbackOutcome & { tools?: number }) | McpRefusal> {
		const found = this.find(server);
		if ('refused' in found) return found;
		const { supervisor, oauth } = found;
		const outcome = await completeSignIn(oauth, query);
		if (outcome.kind !== 'signed-in') return outcome;
		await supervisor.signedIn();
		return { ...outcome, tools: supervisor.status().tools };
	}

	/** Forgets the server's tokens and disconnects it; whether there were any. */
	async signOut(server: string): Promise<{ signedOut: boolean } | McpRefusal> {
		const found = this.find(server);
		if ('refused' in found) return found;
		const signedOut = await found.oauth.signOut();
		found.supervisor.needsSignIn();
		return { signedOut };
	}

	private find(server: string): { supervisor: ServerSupervisor; oauth: ServerOAuth } | McpRefusal {
		const supervisor = this.toolbox.server(server);
		if (!supervisor) return { refused: 'mcp-server-unknown', server };
		if (!supervisor.oauth || supervisor.oauth.signsInItself) return { refused: 'mcp-not-oauth', server };
		return { supervisor, oauth: supervisor.oauth };
	}
}
