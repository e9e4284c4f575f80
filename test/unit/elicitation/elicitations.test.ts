import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { Elicitations } from '../../../src/lib/server/elicitation/elicitations';
import { CallClock } from '../../../src/lib/server/mcp/call-clock';
import { QuestionRouter } from '../../../src/lib/server/mcp/question-router';
import type { RunEvent } from '../../../src/lib/protocol';

const form: ElicitRequest['params'] = {
	mode: 'form',
	message: 'Name?',
	requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }
};
const by = { conversation: 'c1', run: 'r1', server: 'demo', tool: 'demo__ask' };

function registry() {
	const events: { run: string; event: RunEvent }[] = [];
	const logs: string[] = [];
	const questions = new Elicitations({ timeoutMs: 1_000, now: () => '2026-01-01T00:00:00.000Z', publish: (run, event) => events.push({ run, event }), log: (l) => logs.push(l) });
	return { questions, events, logs };
}

describe('Elicitations: questions of running calls, answered once', () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it('publishes the question, lists it, and settles with the checked content; then it is closed', async () => {
		const { questions, events } = registry();
		const asked = questions.ask(by, form, new AbortController().signal);
		const [q] = questions.pending('c1');
		expect(q).toMatchObject({ run: 'r1', server: 'demo', tool: 'demo__ask', mode: 'form', message: 'Name?', expiresAt: '2026-01-01T00:00:01.000Z' });
		expect(events[0]).toEqual({ run: 'r1', event: { event: 'elicitation', data: { conversation: 'c1', run: 'r1', elicitation: q } } });
		expect(questions.pending('other')).toEqual([]);
		expect(questions.answer('r1', q!.id, { action: 'accept', content: {} })).toEqual({ refused: 'invalid', field: 'name', message: 'required' });
		expect(questions.answer('r2', q!.id, { action: 'cancel' })).toEqual({ refused: 'other-run' });
		expect(questions.answer('r1', 'nope', { action: 'cancel' })).toEqual({ refused: 'not-found' });
		expect(questions.answer('r1', q!.id, { action: 'accept', content: { name: 'Ada' } })).toEqual({ action: 'accept' });
		await expect(asked).resolves.toEqual({ action: 'accept', content: { name: 'Ada' } });
		expect(questions.answer('r1', q!.id, { action: 'decline' })).toEqual({ refused: 'closed' });
		expect(questions.answer('r2', q!.id, { action: 'decline' })).toEqual({ refused: 'other-run' });
		expect(questions.pending('c1')).toEqual([]);
		expect(events[1]!.event).toEqual({ event: 'elicitation-closed', data: { conversation: 'c1', run: 'r1', id: q!.id, action: 'accept' } });
	});

	it('answers cancel after the timeout, and cancel when the call ends first', async () => {
		const { questions, events } = registry();
		const timedOut = questions.ask(by, form, new AbortController().signal);
		await vi.advanceTimersByTimeAsync(1_000);
		await expect(timedOut).resolves.toEqual({ action: 'cancel' });
		const ended = new AbortController();
		const cut = questions.ask(by, form, ended.signal);
		ended.abort();
		await expect(cut).resolves.toEqual({ action: 'cancel' });
		expect(events.filter((e) => e.event.event === 'elicitation-closed').map((e) => (e.event.data as { action: string }).action)).toEqual(['cancel', 'ended']);
		expect(questions.pending('c1')).toEqual([]);
	});

	it('a URL question is shown, never opened, and takes no content; one that is not http(s) is declined unseen', async () => {
		const { questions, logs } = registry();
		const url = questions.ask(by, { mode: 'url', message: 'Sign the form', elicitationId: 'e1', url: 'https://example.org/form' }, new AbortController().signal);
		const [q] = questions.pending('c1');
		expect(q).toMatchObject({ mode: 'url', url: 'https://example.org/form' });
		expect(questions.answer('r1', q!.id, { action: 'accept', content: { x: 1 } })).toMatchObject({ refused: 'invalid' });
		expect(questions.answer('r1', q!.id, { action: 'accept' })).toEqual({ action: 'accept' });
		await expect(url).resolves.toEqual({ action: 'accept' });
		await expect(questions.ask(by, { mode: 'url', message: 'x', elicitationId: 'e2', url: 'javascript:alert(1)' }, new AbortController().signal)).resolves.toEqual({ action: 'decline' });
		expect(questions.pending('c1')).toEqual([]);
		expect(logs[0]).toContain('not http(s)');
	});

	it('a URL question the server completes is closed as `complete` and answered accept; the call ending otherwise is still `ended`', async () => {
		const { questions, events } = registry();
		const router = new QuestionRouter(() => {});
		const urlQuestion = (elicitationId: string): ElicitRequest['params'] => ({ mode: 'url', message: 'Pay on our page', elicitationId, url: 'https://pay.example/p' });
		const asker = (request: ElicitRequest['params'], signal: AbortSignal) => questions.ask(by, request, signal);
		const { answered, cut } = await router.within(asker, async () => {
			const done = router.route(urlQuestion('pay-1'), new AbortController().signal);
			// Unknown ids, another server's or a finished interaction's, change nothing.
			router.complete('pay-2');
			expect(questions.pending('c1')).toHaveLength(1);
			router.complete('pay-1');
			const answered = await done;
			router.complete('pay-1');
			return { answered, cut: router.route(urlQuestion('pay-3'), new AbortController().signal) };
		});
		expect(answered).toEqual({ action: 'accept' });
		await expect(cut).resolves.toEqual({ action: 'cancel' });
		const closed = events.filter((e) => e.event.event === 'elicitation-closed').map((e) => (e.event.data as { action: string }).action);
		expect(closed).toEqual(['complete', 'ended']);
		expect(questions.pending('c1')).toEqual([]);
	});
});

describe('QuestionRouter: a question goes to its call', () => {
	const ask = (name: string) => vi.fn(async () => ({ action: 'accept' as const, content: { who: name } }));

	it('within a call\'s async context, to that call, even with others in flight', async () => {
		const router = new QuestionRouter(() => {});
		const [a, b] = [ask('a'), ask('b')];
		const results = await Promise.all([router.within(a, () => router.route(form, new AbortController().signal)), router.within(b, () => router.route(form, new AbortController().signal))]);
		expect(results.map((r) => r.content)).toEqual([{ who: 'a' }, { who: 'b' }]);
	});

	it('outside any context: to the one call in flight; with several or none, cancel', async () => {
		const logs: string[] = [];
		const router = new QuestionRouter((l) => logs.push(l));
		const outside = () => router.route(form, new AbortController().signal);
		expect(await outside()).toEqual({ action: 'cancel' });
		let release!: () => void;
		const held = new Promise<void>((r) => (release = r));
		const only = ask('only');
		const one = router.within(only, () => held);
		expect(await outside()).toMatchObject({ content: { who: 'only' } });
		const two = router.within(ask('two'), () => held);
		expect(await outside()).toEqual({ action: 'cancel' });
		release();
		await Promise.all([one, two]);
		expect(logs).toHaveLength(2);
	});

	it('a call made without an asker gets cancel; its questions are closed when it ends', async () => {
		const router = new QuestionRouter(() => {});
		expect(await router.within(undefined, () => router.route(form, new AbortController().signal))).toEqual({ action: 'cancel' });
		let closed: AbortSignal | undefined;
		await router.within(
			async (_r, signal) => {
				closed = signal;
				return { action: 'cancel' };
			},
			() => router.route(form, new AbortController().signal)
		);
		expect(closed?.aborted).toBe(true);
	});
});

describe('CallClock: the call\'s timeout stands still while a question is open', () => {
	beforeEach(() => vi.useFakeTimers());
	afterEach(() => vi.useRealTimers());

	it('expires after its time, not while paused, and again in full after the pause', async () => {
		const clock = new CallClock(100);
		let answer!: () => void;
		await vi.advanceTimersByTimeAsync(60);
		const paused = clock.paused(() => new Promise<void>((r) => (answer = r)));
		await vi.advanceTimersByTimeAsync(10_000);
		expect(clock.signal.aborted).toBe(false);
		answer();
		await paused;
		await vi.advanceTimersByTimeAsync(99);
		expect(clock.signal.aborted).toBe(false);
		await vi.advanceTimersByTimeAsync(1);
		expect(clock.signal.aborted).toBe(true);
		expect((clock.signal.reason as { code?: number }).code).toBe(-32001);
	});

	it('stopped, it never expires', async () => {
		const clock = new CallClock(100);
		clock.stop();
		await clock.paused(async () => {});
		await vi.advanceTimersByTimeAsync(1_000);
		expect(clock.signal.aborted).toBe(false);
	});
});
