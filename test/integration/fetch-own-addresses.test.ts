import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../support/model-script';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { freePort, Service } from '../support/service';
import { followRun } from '../support/sse';

type Detail = { messages: { role: string; content: string; status?: string; name?: string }[] };

/** Fetches each of `urls()` in turn, one per step, then answers. */
function fetchesScript(urls: () => string[]): Script {
	return (request) => {
		const done = currentTurn(request).after.filter((m) => m.role === 'tool').length;
		const url = urls()[done];
		return url ? { toolCalls: [{ name: 'fetch__fetch', arguments: { url } }] } : { content: 'Done.' };
	};
}

// Issue 21: FETCH_ALLOWED_HOSTS=127.0.0.1 opened every port of the host, so a page that steered the
// agent could make it read Sophos's own API (every chat) or the model server's.
describe('the fetch tool and the service\'s own addresses', () => {
	let ollama: ScriptedOllama;
	let urls: string[] = [];
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(fetchesScript(() => urls));
	});
	afterAll(() => ollama.close());

	it('refuses Sophos\'s API and the model server through an allowed host named without a port', async () => {
		const port = await freePort();
		const modelPort = new URL(ollama.url).port;
		const service = await Service.start(
			{ ollamaUrl: ollama.url, env: { FETCH_ALLOWED_HOSTS: '127.0.0.1,localhost' } },
			port
		);
		try {
			urls = [
				`http://127.0.0.1:${port}/api/conversations`,
				`http://localhost:${modelPort}/api/tags`
			];
			// The person names them, so the exfiltration guard has nothing to ask about.
			const res = await service.post('/api/chat', { message: `Read ${urls.join(' ')}` });
			const { conversation } = await res.json();
			const events = await followRun(service.url, conversation);
			expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
			const detail: Detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
			const results = detail.messages.filter((m) => m.role === 'tool');
			expect(results.map((m) => m.status)).toEqual(['error', 'error']);
			expect(results[0]!.content).toBe(`Refusing to fetch ${urls[0]}: 127.0.0.1 is a loopback address.`);
			expect(results[1]!.content).toMatch(/^Refusing to fetch http:\/\/localhost:\d+\/api\/tags: localhost resolves to (127\.0\.0\.1|::1), which is a loopback address\.$/);
		} finally {
			await service.stop();
		}
	});
});
