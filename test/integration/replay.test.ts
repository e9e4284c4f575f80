import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun, readEvents, sseMessages, tokensOf, type SseEvent } from '../support/sse';

const ANSWER = Array.from({ length: 150 }, (_, i) => `word${i}`).join(' ');

/** Late subscribers and reconnects with Last-Event-ID: no gap, no duplicate. */
describe('replay', () => {
	let ollama: ScriptedOllama;
	let service: Service;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript(ANSWER));
		// A small buffer, so the run's ~280 token events must be merged to stay within it.
		service = await Service.start({ ollamaUrl: ollama.url, env: { SSE_BUFFER_EVENTS: '100' } });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('a subscriber joining late with Last-Event-ID gets exactly the rest', async () => {
		ollama.script = answerScript(ANSWER, { hold: 'mid', holdAfterChunks: 60 });
		const { conversation, run } = await (await service.post('/api/chat', { message: 'go' })).json();
		await ollama.held('mid');

		// The first subscriber reads what exists so far, then drops its connection.
		const controller = new AbortController();
		const first: SseEvent[] = [];
		const res = await fetch(`${service.url}/api/chat?conversation=${conversation}`, { signal: controller.signal });
		for await (const e of sseMessages(res)) {
			first.push(e);
			if (first.filter((x) => x.event === 'token').length === 40) break;
		}
		controller.abort();
		const lastId = Number(first.at(-1)!.id);

		const late = await fetch(`${service.url}/api/chat?conversation=${conversation}`, {
			headers: { 'Last-Event-ID': String(lastId) }
		});
		ollama.release('mid');
		const rest = await readEvents(late);
		expect(Number(rest[0]!.id)).toBeGreaterThan(lastId);
		expect(tokensOf(first) + tokensOf(rest)).toBe(ANSWER);
		expect(rest.at(-1)).toMatchObject({ event: 'end', data: { conversation, run, status: 'completed' } });
		const ids = [...first, ...rest].map((e) => Number(e.id));
		expect(ids).toEqual([...ids].sort((a, b) => a - b));
		expect(new Set(ids).size).toBe(ids.length);
	});

	it('a subscriber from the start, after the buffer was compacted, still gets the whole answer', async () => {
		ollama.script = answerScript(ANSWER, { hold: 'late', holdAfterChunks: 250 });
		const { conversation } = await (await service.post('/api/chat', { message: 'again' })).json();
		// Wait until the service has published all 250 chunks before the hold, not just been sent them.
		const observer = await fetch(`${service.url}/api/chat?conversation=${conversation}`);
		let seen = '';
		const observed = sseMessages(observer);
		for await (const e of observed) {
			if (e.event === 'token') seen += e.data as string;
			if (seen.length === 250 * 4) break;
		}
		const open = (lastEventId?: number) =>
			fetch(`${service.url}/api/chat?conversation=${conversation}`, {
				headers: lastEventId ? { 'Last-Event-ID': String(lastEventId) } : {}
			});
		const [fromStart, inside] = await Promise.all([open(), open(150)]);
		ollama.release('late');
		const [all, fromInside] = await Promise.all([readEvents(fromStart), readEvents(inside)]);
		await observed.return(undefined);
		expect(tokensOf(all)).toBe(ANSWER);
		expect(all.length).toBeLessThan(150);
		// Event 150 lies inside a merged run of tokens: the replay starts right after it.
		const wholeText = tokensOf(all);
		expect(wholeText.endsWith(tokensOf(fromInside))).toBe(true);
		expect(tokensOf(fromInside).length).toBe(ANSWER.length - 149 * 4);
	});

	it('after the run ended, the stream answers with the durable outcome', async () => {
		ollama.script = answerScript('Short.');
		const { conversation } = await (await service.post('/api/chat', { message: 'short' })).json();
		await followRun(service.url, conversation);
		const after = await followRun(service.url, conversation, 3);
		expect(after).toEqual([{ event: 'end', data: { conversation, status: 'completed' } }]);
	});

	it('naming the run it started, a stream opened after that run ended still replays its steps', async () => {
		ollama.script = answerScript('Fast.');
		const { conversation, run } = await (await service.post('/api/chat', { message: 'fast' })).json();
		const ended = [{ event: 'end', data: { conversation, status: 'completed' } }];
		// The bare end answers once the run has left the registry: from here on only what was kept of it replays.
		await expect.poll(() => followRun(service.url, conversation), { timeout: 60_000 }).toEqual(ended);

		const whole = await readEvents(await service.fetch(`/api/chat?conversation=${conversation}&run=${run}`));
		expect(tokensOf(whole)).toBe('Fast.');
		expect(whole.some((e) => e.event === 'trace')).toBe(true);
		expect(whole.at(-1)).toMatchObject({ event: 'end', data: { conversation, run, status: 'completed' } });
		const ids = whole.slice(0, -1).map((e) => Number(e.id));
		const rest = await readEvents(
			await service.fetch(`/api/chat?conversation=${conversation}&run=${run.toUpperCase()}`, { headers: { 'Last-Event-ID': String(ids[1]) } })
		);
		expect(rest).toEqual(whole.slice(2));

		// Another conversation's run, or one never run: the conversation's outcome alone.
		const other = await (await service.post('/api/chat', { message: 'other' })).json();
		await followRun(service.url, other.conversation);
		for (const named of [other.run, crypto.randomUUID()]) {
			expect(await readEvents(await service.fetch(`/api/chat?conversation=${conversation}&run=${named}`))).toEqual(ended);
		}
		expect(await readEvents(await service.fetch(`/api/chat?conversation=${conversation}&run=not-a-run`))).toEqual([
			{ event: 'chat-error', data: { code: 'BAD_REQUEST', message: 'Invalid Run ID' } }
		]);

		// Once the conversation is deleted, nothing of its run is replayed.
		expect((await service.fetch(`/api/conversations/${conversation}`, { method: 'DELETE' })).status).toBe(204);
		const gone = await readEvents(await service.fetch(`/api/chat?conversation=${conversation}&run=${run}`));
		expect(gone).toEqual([{ event: 'chat-error', data: expect.objectContaining({ code: 'NOT_FOUND', conversation }) }]);
	});

	it('a Last-Event-ID from an earlier, longer run replays the new run whole', async () => {
		ollama.script = answerScript('Second run.', { hold: 'stale', holdAfterChunks: 1 });
		const { conversation } = await (await service.post('/api/chat', { message: 'first of two' })).json();
		const first = await fetch(`${service.url}/api/chat?conversation=${conversation}`);
		await ollama.held('stale');
		const staleId = 10_000;
		const stale = await fetch(`${service.url}/api/chat?conversation=${conversation}`, {
			headers: { 'Last-Event-ID': String(staleId) }
		});
		ollama.release('stale');
		const [a, b] = await Promise.all([readEvents(first), readEvents(stale)]);
		expect(b).toEqual(a);
		expect(tokensOf(b)).toBe('Second run.');
	});
});
