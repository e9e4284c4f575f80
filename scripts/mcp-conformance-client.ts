// `npx tsx scripts/mcp-conformance-client.ts <server-url>`: Sophos's OAuth client (src/lib/server/mcp/oauth/)
// as the MCP conformance package's client scenarios run a client: it connects to the scenario's
// server, and when that asks for a sign-in, signs in as a person's browser would (redirects
// followed, the code taken from the redirect back), connects again, lists the tools and calls each.
// Its tokens live in a SQLite file of its own, in a temporary directory.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { openDatabase } from '../src/lib/server/sqlite/database';
import { sqliteMcpAuthStorage } from '../src/lib/server/sqlite/mcp-auth-store';
import { ServerOAuth } from '../src/lib/server/mcp/oauth/server-oauth';
import { beginSignIn, completeSignIn } from '../src/lib/server/mcp/oauth/sign-in-flow';

const REDIRECT = 'http://127.0.0.1:1/api/mcp/conformance/callback';
const url = process.argv.at(-1)!;
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-conformance-'));
const storage = sqliteMcpAuthStorage(openDatabase(path.join(dir, 'sophos.db')));
const oauth = new ServerOAuth({ server: 'conformance', url, storage, log: (line) => console.log(line) });

async function connect(): Promise<Client> {
	const client = new Client({ name: 'sophos', version: '1.0.0' });
	oauth.clearRefusal();
	await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: oauth.connectionProvider() }));
	return client;
}

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

let client: Client;
try {
	client = await connect();
} catch (e) {
	if (!oauth.wasRefused()) throw e;
	await signIn();
	client = await connect();
}
const { tools } = await client.listTools();
for (const tool of tools) console.log(JSON.stringify(await client.callTool({ name: tool.name, arguments: {} })));
await client.close();
