import { ApiError } from '../../errors';
import type { Toolbox } from '../toolbox';
import type { ServerSupervisor } from '../server-supervisor';
import { beginSignIn, completeSignIn, type CallbackOutcome, type CallbackQuery } from './sign-in-flow';
import type { ServerOAuth } from './server-oauth';

/**
 * What the sign-in routes ask of the runtime: begin a person's sign-in to a configured remote
 * server, take the browser's return, sign out. Refusals are ApiErrors: an unknown server is
 * NOT_FOUND, one that is not signed in to with OAuth (stdio, or its own Authorization header) BAD_REQUEST.
 */
export class McpSignIn {
	constructor(private readonly toolbox: Toolbox) {}

	/** The authorization server's URL to send the browser to. */
	async begin(server: string, redirectUri: string): Promise<URL> {
		const { oauth } = this.find(server);
		try {
			return await beginSignIn(oauth, redirectUri);
		} catch (e) {
			throw new ApiError('MCP_SIGN_IN_FAILED', `Signing in to "${server}" could not begin: ${(e as Error).message}`, { cause: e });
		}
	}

	/** The callback; on success the server is connected before this returns. */
	async complete(server: string, query: CallbackQuery): Promise<CallbackOutcome & { tools?: number }> {
		const { supervisor, oauth } = this.find(server);
		const outcome = await completeSignIn(oauth, query);
		if (outcome.kind !== 'signed-in') return outcome;
		await supervisor.signedIn();
		return { ...outcome, tools: supervisor.status().tools };
	}

	/** Forgets the server's tokens and disconnects it; whether there were any. */
	async signOut(server: string): Promise<boolean> {
		const { supervisor, oauth } = this.find(server);
		const had = await oauth.signOut();
		supervisor.needsSignIn();
		return had;
	}

	private find(server: string): { supervisor: ServerSupervisor; oauth: ServerOAuth } {
		const supervisor = this.toolbox.server(server);
		if (!supervisor) throw new ApiError('NOT_FOUND', `No MCP server is named "${server}"`);
		if (!supervisor.oauth) throw new ApiError('BAD_REQUEST', `MCP server "${server}" is not signed in to with OAuth`);
		return { supervisor, oauth: supervisor.oauth };
	}
}
