// A tool server's question asked during a call on instance A, answered through instance B: the
// answer is carried to A, the call gets it once, and B answers the person only once A has taken or
// refused it. Two service processes on one PostgreSQL database, the repo's stdio test server (its
// `ask` tool) started by each.

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ScriptRequest } from '../support/model-script';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { sseMessages, type SseEvent } from '../support/sse';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { testMcpConfig } from '../support/test-config';

type Question = { id: string; run: string; server: string; tool: string; message: string; expiresAt: string };

/** "ask": the test server's question; once answered, the model's next step is held until the test releases it. */
const script = (request: ScriptRequest) =>
	currentTurn(request).after.some((m) => m.role === 'tool')
		? { content: 'Thanks, that is all.', hold: 'answered', holdAfterChunks: 1 }
		: { toolCalls: [{ name: 'test__ask', arguments: {} }] };

describe('an answer to a question sent to another instance than the one running the call', () => {
	let ollama: ScriptedOllama;
	let database: TestDatabase;
	let config: ReturnType<typeof testMcpConfig>;
	let a: Service;
	let b: Service;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script);
		database = await createTestDatabase(inject('postgresUrl'), 'elicitation');
		config = testMcpConfig();
		const start = (name: string) =>
			Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, env: { DATABASE_URL: database.url, SOPHOS_INSTANCE_ID: `instance-${name}` } });
		a = await start('a');
		b = await start('b');
	});
	afterAll(async () => {
		await a?.stop();
		await b?.stop();
		await ollama?.close();
		await database?.drop();
	});

	const answer = (s: Service, run: string, id: string, body: unknown) => s.post(`/api/runs/${run}/elicitations/${id}`, body);
	const answered = () => config.calls().filter((l) => l.startsWith('ask answered '));

	it('is carried to the owner: the call gets the content once; then closed (409), an unknown id not found (404), before and after the run ends', async () => {
		const { conversation, run } = await (await a.post('/api/chat', { message: 'ask me' })).json();
		// Followed from B, whose readers see the question as A asks it.
		const stream = sseMessages(await fetch(`${b.url}/api/chat?conversation=${conversation}`));
		const seen: SseEvent[] = [];
		while (seen.at(-1)?.event !== 'elicitation') seen.push((await stream.next()).value as SseEvent);
		const question = (seen.at(-1)!.data as { elicitation: Question }).elicitation;
		expect(question).toMatchObject({ run, server: 'test', tool: 'test__ask', message: 'Who is asking?' });

		// B lists it in the conversation's detail too, from the run's kept events (B's reader had it from them).
		const detail = async (s: Service) => (await (await s.fetch(`/api/conversations/${conversation}`)).json()).elicitations;
		expect(await detail(b)).toEqual([question]);
		expect(await detail(a)).toEqual([question]);

		const unknown = await answer(b, run, '00000000-0000-4000-8000-000000000000', { action: 'cancel' });
		expect(unknown.status).toBe(404);
		const invalid = await answer(b, run, question.id, { action: 'accept', content: { name: 'Ada', age: 200 } });
		expect(invalid.status).toBe(400);
		expect((await invalid.json()).error.message).toMatch(/^content\.age: /);
		expect(answered()).toEqual([]);

		const taken = await answer(b, run, question.id, { action: 'accept', content: { name: 'Ada', age: 36 } });
		expect({ status: taken.status, body: await taken.json() }).toEqual({ status: 200, body: { run, id: question.id, action: 'accept' } });
		await ollama.held('answered');
		expect(answered()).toEqual(['ask answered {"action":"accept","content":{"name":"Ada","age":36}}']);

		// The run still going on A: A says the question is closed, through B and on A alike.
		for (const s of [b, a]) {
			const again = await answer(s, run, question.id, { action: 'decline' });
			expect(again.status).toBe(409);
			expect((await again.json()).error.code).toBe('ELICITATION_CLOSED');
		}
		ollama.release('answered');
		const rest: SseEvent[] = [];
		for await (const e of { [Symbol.asyncIterator]: () => stream }) rest.push(e);
		expect(rest.find((e) => e.event === 'elicitation-closed')?.data).toMatchObject({ id: question.id, action: 'accept' });
		expect(rest.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });

		expect(await detail(b)).toEqual([]);
		// The run ended: B answers from its kept events.
		const late = await answer(b, run, question.id, { action: 'accept', content: { name: 'Bob' } });
		expect(late.status).toBe(409);
		expect((await late.json()).error.code).toBe('ELICITATION_CLOSED');
		expect((await answer(b, run, '00000000-0000-4000-8000-000000000000', { action: 'cancel' })).status).toBe(404);
		expect(answered()).toHaveLength(1);
	});
});
