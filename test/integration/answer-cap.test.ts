import { describe, expect, it } from 'vitest';
import { MODEL_SERVER_KINDS, MODEL_SERVERS } from '../support/model-servers';
import type { ChatRequest } from '../support/scripted-ollama';
import type { CompletionRequest } from '../support/scripted-openai';
import { Service } from '../support/service';
import { followRun } from '../support/sse';

const TEN_MB = 10 * 1024 * 1024;
const CAP = 10_000;
const NOTE = `\n\n[Answer cut at the cap of ${CAP} characters (MAX_ANSWER_CHARS).]`;

type Detail = { messages: { role: string; content: string; finishReason?: string }[] };

// Issue 21: nothing capped an answer, so a model server that sent 10 MB had all of it stored.
describe.each(MODEL_SERVER_KINDS)('the answer cap (%s)', (kind) => {
	it('sends MAX_ANSWER_TOKENS to the model and keeps MAX_ANSWER_CHARS of a 10 MB answer, marked as cut', async () => {
		const model = await MODEL_SERVERS[kind](() => ({ content: 'x'.repeat(TEN_MB - 1) + 'END', chunkChars: 64 * 1024 }));
		const service = await Service.start({
			env: { ...model.serviceEnv(), MAX_ANSWER_TOKENS: '256', MAX_ANSWER_CHARS: String(CAP) }
		});
		try {
			const { conversation } = await (await service.post('/api/chat', { message: 'Say a lot.' })).json();
			const events = await followRun(service.url, conversation);
			expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
			const request = model.requests[0]!;
			if (kind === 'ollama') expect((request as ChatRequest).options).toMatchObject({ num_predict: 256 });
			else expect((request as unknown as CompletionRequest).max_tokens).toBe(256);

			const detail: Detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
			const answer = detail.messages.at(-1)!;
			expect(answer).toMatchObject({ role: 'assistant', finishReason: 'length' });
			expect(answer.content).toBe('x'.repeat(CAP) + NOTE);
			// What streamed to the page is what was kept, the note included.
			const streamed = events.filter((e) => e.event === 'token').map((e) => e.data as string).join('');
			expect(streamed).toBe('x'.repeat(CAP) + NOTE);
		} finally {
			await service.stop();
			await model.close();
		}
	});

	it('refuses a MAX_ANSWER_CHARS below 1,000 or a MAX_ANSWER_TOKENS of 0, naming the setting', async () => {
		const model = await MODEL_SERVERS[kind](() => ({ content: 'hi' }));
		try {
			for (const [name, value] of [['MAX_ANSWER_CHARS', '999'], ['MAX_ANSWER_TOKENS', '0'], ['MAX_ANSWER_TOKENS', 'lots']]) {
				await expect(Service.start({ env: { ...model.serviceEnv(), [name!]: value! } })).rejects.toThrow(name);
			}
		} finally {
			await model.close();
		}
	});
});
