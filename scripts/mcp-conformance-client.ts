// `npx tsx scripts/mcp-conformance-client.ts <server-url>`: Sophos's OAuth client (src/lib/server/mcp/oauth/)
// as the MCP conformance package's client scenarios run a client. The server is Sophos's own
// supervisor of a remote server: it connects, and while the server wants a sign-in (at first, or
// again for more scope), signs in as a person's browser would (redirects followed, the code taken
// from the redirect back); then it calls each tool, signing in again when a call needs more scope.
// How many sign-ins a server that keeps refusing gets is Sophos's own limit, not this script's.
// A scenario that gives a client id and its secret or private key (MCP_CONFORMANCE_CONTEXT) is a machine-to-machine one:
// the server is configured as mcp.json would with `grant: "client_credentials"`, its `issuer` the
// authorization server the scenario's server names, and no sign-in happens.
// Its tokens live in a SQLite file of its own, in a temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { discoverOAuthServerInfo } from '@modelcontextprotocol/sdk/client/auth.js';
import { z } from 'zod';
import { openDatabase } from '../src/lib/server/sqlite/database';
import { sqliteMcpAuthStorage } from '../src/lib/server/sqlite/mcp-auth-store';
import { ServerOAuth } from '../src/lib/server/mcp/oauth/server-oauth';
import { beginSignIn, completeSignIn } from '../src/lib/server/mcp/oauth/sign-in-flow';
import { SignInRequired } from '../src/lib/server/mcp/oauth/sign-in-required';
import { ServerSupervisor } from '../src/lib/server/mcp/server-supervisor';

const REDIRECT = 'http://127.0.0.1:1/api/mcp/conformance/callback';
const url = process.argv.at(-1)!;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-conformance-'));
const storage = sqliteMcpAuthStorage(openDatabase(path.join(dir, 'sophos.db')));
const log = (line: string) => console.log(line);
const context = z
	.object({ client_id: z.string().optional(), client_secret: z.string().optional(), private_key_pem: z.string().optional(), signing_algorithm: z.string().optional() })
	.parse(JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}'));
const settings = context.client_id
	? {
			grant: 'client_credentials' as const,
			clientId: context.client_id,
			...(context.client_secret ? { clientSecret: context.client_secret } : {}),
			...(context.private_key_pem ? { privateKey: context.private_key_pem, signingAlgorithm: context.signing_algorithm } : {}),
			issuer: String((await discoverOAuthServerInfo(url)).authorizationServerUrl)
		}
	: undefined;
const oauth = new ServerOAuth({ server: 'conformance', url, settings, storage, log });
const server = new ServerSupervisor('conformance', { url }, log, oauth);

/** The browser's part: from the authorization server's URL to the redirect back to Sophos. */
async function signIn(): Promise<void> {
	let next = (await beginSignIn(oauth, REDIRECT)).href;
	for (let hop = 0; hop < 10 && !next.startsWith(REDIRECT); hop++) {
		const res = await fetch(next, { redirect: 'manual' });
		const location = res.headers.get('location');
		if (!location) throw new Error(`the authorization server answered ${res.status} without a redirect`);
		next = new URL(location, next).href;
	}
	const back = new URL(next);
	const outcome = await completeSignIn(oauth, {
		state: back.searchParams.get('state') ?? undefined,
		code: back.searchParams.get('code') ?? undefined,
		error: back.searchParams.get('error') ?? undefined
	});
	if (outcome.kind !== 'signed-in') throw new Error(`sign-in: ${JSON.stringify(outcome)}`);
}

/** Signs in while the server wants it; false when it gave up on the server (it is down, with its error). */
async function connected(): Promise<boolean> {
	await server.currentTools();
	while (server.status().state === 'sign-in') {
		await signIn();
		await server.signedIn();
	}
	return server.status().state === 'up';
}

try {
	// A server Sophos gave up on (one that refuses every scope it is given) ends the run as a person
	// would see it, the error in the server's status; the scenario's checks judge it.
	const up = await connected();
	if (!up) console.log(`server down: ${server.status().error}`);
	const { tools } = up ? await server.connected().listTools() : { tools: [] };
	for (const tool of tools) {
		for (;;) {
			try {
				console.log(JSON.stringify(await server.callTool(tool.name, {}, { timeoutMs: 30_000, meta: {} })));
				break;
			} catch (e) {
				if (!(e instanceof SignInRequired) || !(await connected())) throw e;
			}
		}
	}
} finally {
	await server.close();
}
