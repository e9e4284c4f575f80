import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScriptedModelServer } from '../support/model-script';
import { MODEL_SERVER_KINDS, MODEL_SERVERS } from '../support/model-servers';
import { SUMMARY, WALKTHROUGH_PROMPT, walkthroughScript } from '../support/scripts';
import { Service, TEST_ENGINE } from '../support/service';
import { followRun } from '../support/sse';
import { PageServer } from '../support/page-server';

type Detail = {
	conversation: { messageCount: number; status: string; model: string | null };
	messages: { role: string; content: string; status?: string; name?: string; model?: string; usage?: { inputTokens?: number; outputTokens?: number } }[];
	resumable: boolean;
};

async function detail(service: Service, id: string): Promise<Detail> {
	return (await service.fetch(`/api/conversations/${id}`)).json();
}

// The same run against each provider's wire format, through its real client (ChatOllama, ChatOpenAI).
describe.each(MODEL_SERVER_KINDS)('the walkthrough run (%s)', (kind) => {
	let ollama: ScriptedModelServer;
	let page: PageServer;
	let prompt: string;
	let env: Record<string, string>;
	beforeAll(async () => {
		page = await PageServer.start();
		prompt = WALKTHROUGH_PROMPT.replace('{url}', page.url());
		env = { FETCH_ALLOWED_HOSTS: page.host };
		ollama = await MODEL_SERVERS[kind](walkthroughScript({ url: page.url() }));
	});
	afterAll(async () => {
		await ollama.close();
		await page.close();
	});

	it('completes with 8 messages, 9 checkpoints and the entity in memory', async () => {
		const service = await Service.start({ env: { ...ollama.serviceEnv(), ...env } });
		try {
			// The engine this project runs on is the one the service opened.
			expect(service.output).toMatch(TEST_ENGINE === 'postgres' ? /Storage: PostgreSQL at 127\.0\.0\.1:\d+\/svc_/ : /Storage: SQLite file /);
			const res = await service.post('/api/chat', { message: prompt });
			expect(res.status).toBe(200);
			const { conversation, run } = await res.json();
			const events = await followRun(service.url, conversation);
			expect(events.at(-1)).toEqual({ id: String(events.length), event: 'end', data: { conversation, run, status: 'completed' } });

			const d = await detail(service, conversation);
			expect(d.messages.map((m) => m.role)).toEqual([
				'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'assistant'
			]);
			expect(d.messages.filter((m) => m.role === 'tool').map((m) => m.status)).toEqual(['success', 'error', 'success']);
			expect(d.messages[2]).toMatchObject({ name: 'fetch__fetch' });
			expect(d.messages[2]!.content).toContain('# Example Domain');
			expect(page.requests).toEqual(['/robots.txt', '/']);
			expect(d.conversation).toMatchObject({ messageCount: 8, status: 'completed' });
			expect(d.resumable).toBe(false);
			// Every answer says which model gave it and what its call used, from the provider's own figures.
			const answers = d.messages.filter((m) => m.role === 'assistant');
			expect(d.conversation.model).toBe(ollama.defaultModel);
			expect(answers.map((m) => m.model)).toEqual(Array(4).fill(ollama.defaultModel));
			for (const m of answers) expect(m.usage).toMatchObject({ inputTokens: expect.any(Number), outputTokens: expect.any(Number) });

			const jsonl = await (await service.fetch(`/api/conversations/${conversation}/export?format=jsonl`)).text();
			const checkpoints = jsonl.trim().split('\n').map((l) => JSON.parse(l));
			expect(checkpoints.map((c) => c.step)).toEqual([-1, 0, 1, 2, 3, 4, 5, 6, 7]);
			expect(checkpoints.at(-1)).toMatchObject({ next: [], message_count: 8, last_message: { role: 'assistant' } });

			const runs = await (await service.fetch(`/api/conversations/${conversation}/runs`)).json();
			expect(runs.runs).toEqual([expect.objectContaining({ id: run, status: 'completed', error: null })]);
			const inputTokens = answers.reduce((n, m) => n + m.usage!.inputTokens!, 0);
			expect(runs.runs[0].usage).toMatchObject({ calls: 4, inputTokens });

			const memory = fs.readFileSync(path.join(service.options.dataDir, 'memory.jsonl'), 'utf8');
			expect(memory).toContain('"name":"example.com"');
			expect(memory).toContain(SUMMARY);
			expect(await service.stop()).toBe(0);
		} finally {
			await service.stop();
		}
	});

	it('survives SIGKILL while the model streams step 3, and resumes without redoing the first tool', async () => {
		ollama.script = walkthroughScript({ url: page.url(), second: { hold: 'step3', holdAfterChunks: 2 } });
		page.requests.length = 0;
		const service = await Service.start({ env: { ...ollama.serviceEnv(), ...env } });
		let restarted: Service | undefined;
		try {
			const { conversation } = await (await service.post('/api/chat', { message: prompt })).json();
			await ollama.held('step3');
			await service.kill();
			ollama.release('step3');

			restarted = await service.restart();
			const before = await detail(restarted, conversation);
			expect(before.conversation.status).toBe('interrupted');
			expect(before.resumable).toBe(true);
			expect(before.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
			expect(before.conversation.messageCount).toBe(3);

			const requestsBefore = ollama.requests.length;
			const resume = await restarted.post('/api/chat', { conversation, resume: true });
			expect(resume.status).toBe(200);
			const events = await followRun(restarted.url, conversation);
			expect(events.at(-1)?.event).toBe('end');

			const after = await detail(restarted, conversation);
			expect(after.messages).toHaveLength(8);
			expect(after.conversation.status).toBe('completed');
			expect(after.messages.filter((m) => m.role === 'tool' && m.name === 'fetch__fetch')).toHaveLength(1);
			expect(page.pageRequests('/')).toBe(1);
			// The resumed run asked the model three times (steps 3, 5, 7), none of them for step 1 again.
			const resumedRequests = ollama.requests.slice(requestsBefore);
			expect(resumedRequests.map((r) => r.messages.filter((m) => m.role === 'tool').length)).toEqual([1, 2, 3]);

			const runs = (await (await restarted.fetch(`/api/conversations/${conversation}/runs`)).json()).runs;
			expect(runs.map((r: { status: string }) => r.status)).toEqual(['completed', 'interrupted']);
			expect(runs[1].error.code).toBe('PROCESS_EXITED');
			// Usage counts each answer once, for the run whose call gave it: the killed run's step-1
			// answer survived, its step-3 call died with it and left nothing; the resume made three.
			expect(runs.map((r: { usage: { calls: number } }) => r.usage.calls)).toEqual([3, 1]);
			const answers = after.messages.filter((m) => m.role === 'assistant');
			const outputTokens = answers.reduce((n, m) => n + (m.usage?.outputTokens ?? 0), 0);
			expect(runs[0].usage.outputTokens + runs[1].usage.outputTokens).toBe(outputTokens);
		} finally {
			await restarted?.stop();
		}
	});
});
