import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser } from '../support/browser';
import { PageServer } from '../support/page-server';
import { RebindingSwitch } from '../support/rebinding-switch';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service, serviceState } from '../support/service';
import { followRun } from '../support/sse';

const SECRET = 'My bank PIN is 4921';
const EVIL = 'evil.example';
const ATTACKER = 'attacker.example';

type Attempt = { what: string; status: number | string; body: string };

/**
 * What a page the user happens to visit tries (issue 13), in a real Chromium. The attacker's own
 * script: read the list, a conversation, an export and the stream; start a run; cancel one; delete
 * a conversation. It records what each answer let it see.
 */
const attackScript = (base: string, conversation: string, run: string) => `
(async () => {
	const base = ${JSON.stringify(base)};
	const results = [];
	const attempt = async (what, url, init) => {
		try {
			const res = await fetch(base + url, init);
			results.push({ what, status: res.type === 'opaque' ? 'opaque' : res.status, body: res.type === 'opaque' ? '' : await res.text() });
		} catch (e) {
			results.push({ what, status: 'failed', body: String(e) });
		}
	};
	const json = (body) => new Blob([JSON.stringify(body)], { type: 'application/json' });
	const c = ${JSON.stringify(conversation)};
	const r = ${JSON.stringify(run)};
	const cors = base === '' ? 'same-origin' : 'no-cors';
	await attempt('list', '/api/conversations', { mode: cors });
	await attempt('read', '/api/conversations/' + c, { mode: cors });
	await attempt('runs', '/api/conversations/' + c + '/runs', { mode: cors });
	await attempt('export', '/api/conversations/' + c + '/export', { mode: cors });
	await attempt('readiness', '/api/readyz', { mode: cors });
	await attempt('start', '/api/chat', { method: 'POST', mode: cors, body: json({ message: 'pwned' }) });
	await attempt('interrupt', '/api/chat', { method: 'POST', mode: cors, body: json({ conversation: c, message: 'pwned', ifBusy: 'interrupt' }) });
	await attempt('cancel by chat', '/api/chat', { method: 'POST', mode: cors, body: json({ conversation: c, cancel: true }) });
	await attempt('cancel', '/api/runs/' + r + '/cancel', { method: 'POST', mode: cors });
	await attempt('cancel as text', '/api/runs/' + r + '/cancel', { method: 'POST', mode: cors, body: '{}' });
	await attempt('delete', '/api/conversations/' + c, { method: 'DELETE', mode: base === '' ? 'same-origin' : 'cors' });
	navigator.sendBeacon(base + '/api/runs/' + r + '/cancel', new Blob(['{}'], { type: 'text/plain' }));
	results.push(await new Promise((resolve) => {
		const source = new EventSource(base + '/api/chat?conversation=' + c);
		const got = [];
		source.onmessage = (e) => got.push(e.data);
		for (const name of ['token', 'end', 'chat-error']) source.addEventListener(name, (e) => got.push(e.data));
		source.onerror = () => { source.close(); resolve({ what: 'stream', status: 'closed', body: got.join('') }); };
	}));
	window.__attack = results;
})();
`;

describe('the front door in Chromium', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;
	let conversation: string;
	let run: string;
	let before: string;

	const state = () => serviceState(service, [conversation]);

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('A long answer that is still streaming when the attack comes.', { hold: 'live', holdAfterChunks: 2 }));
		service = await Service.start({ ollamaUrl: ollama.url });
		({ conversation, run } = await (await service.post('/api/chat', { message: SECRET })).json());
		await ollama.held('live');
		// Both names resolve to loopback, as a rebinding attacker's name does once it is re-pointed.
		browser = await launchBrowser([`--host-resolver-rules=MAP ${EVIL} 127.0.0.1, MAP ${ATTACKER} 127.0.0.1`]);
		before = await state();
	});
	afterAll(async () => {
		await browser?.close();
		await service?.stop();
		await ollama?.close();
	});

	const attackPage = (base: string) =>
		`<!doctype html><title>cute cats</title><script>${attackScript(base, conversation, run)}</script>`;

	/** Opens the attacker's page at `url`, lets its script run, returns what it saw. */
	async function attack(page: Page, url: string): Promise<Attempt[]> {
		await page.goto(url);
		await page.waitForFunction(() => (window as unknown as { __attack?: unknown }).__attack !== undefined);
		return page.evaluate(() => (window as unknown as { __attack: Attempt[] }).__attack);
	}

	it('DNS rebinding: a page whose name now points at 127.0.0.1 reads nothing and changes nothing', async () => {
		const rebinding = await RebindingSwitch.start(attackPage(''), service.port);
		const origin = `http://${EVIL}:${rebinding.port}`;
		const context = await browser.newContext();
		const page = await context.newPage();
		const statuses = new Map<string, number>();
		page.on('response', (r) => r.url().startsWith(origin + '/api/') && statuses.set(`${r.request().method()} ${new URL(r.url()).pathname}`, r.status()));
		try {
			// Same origin for the page and the API: the browser's own rules let it read every answer.
			const results = await attack(page, `${origin}/`);
			expect(results.map((r) => r.what)).toEqual([
				'list', 'read', 'runs', 'export', 'readiness', 'start', 'interrupt', 'cancel by chat', 'cancel', 'cancel as text', 'delete', 'stream'
			]);
			for (const r of results.filter((x) => x.what !== 'stream')) {
				// A text/plain POST is a form post to SvelteKit, which refuses it before our guard runs.
				if (r.what === 'cancel as text') {
					expect([r.status, r.body]).toEqual([403, 'Cross-site POST form submissions are forbidden']);
					continue;
				}
				expect(r.status, r.what).toBe(421);
				expect(JSON.parse(r.body).error.code, r.what).toBe('HOST_NOT_ALLOWED');
			}
			for (const r of results) {
				expect(r.body, r.what).not.toContain(SECRET);
				expect(r.body, r.what).not.toContain(run);
			}
			expect(results.at(-1)).toEqual({ what: 'stream', status: 'closed', body: '' });
			expect(statuses.get('GET /api/chat')).toBe(421);
			expect(new Set(statuses.values())).toEqual(new Set([421, 403]));

			// Without the attacker's document in the way, the page itself is refused too.
			const direct = await page.goto(`${origin}/?c=${conversation}`);
			expect(direct?.status()).toBe(421);
			expect(await page.content()).not.toContain(SECRET);
		} finally {
			await context.close();
			await rebinding.close();
		}
		expect(await state()).toBe(before);
	});

	it.each([
		['a cross-site page', (port: string) => `http://${ATTACKER}:${port}/`],
		['a same-site page on another loopback port', (port: string) => `http://127.0.0.1:${port}/`]
	])('no-cors POSTs from %s cancel nothing, start nothing, delete nothing', async (_, pageUrl) => {
		const sophos = `http://127.0.0.1:${service.port}`;
		const attacker = await PageServer.start({ '/': attackPage(sophos) });
		const context = await browser.newContext();
		const page = await context.newPage();
		// How each request to Sophos ended, as the browser saw it (the page itself sees only opaque answers).
		const outcomes: string[] = [];
		// The beacon is fire-and-forget: the page's script is done before its answer may arrive, so
		// the count waits for every POST's answer instead of reading it when the script ends.
		const POSTS = 6;
		let allPosted!: () => void;
		const posted = new Promise<void>((resolve) => (allPosted = resolve));
		const record = (method: string, url: string, outcome: string) => {
			if (!url.startsWith(sophos)) return;
			outcomes.push(`${method} ${new URL(url).pathname} ${outcome}`);
			if (outcomes.filter((o) => o.startsWith('POST ')).length === POSTS) allPosted();
		};
		page.on('response', (r) => record(r.request().method(), r.url(), String(r.status())));
		page.on('requestfailed', (r) => record(r.method(), r.url(), r.failure()?.errorText ?? 'failed'));
		try {
			const results = await attack(page, pageUrl(attacker.host.split(':')[1]!));
			for (const r of results) expect(r.body, r.what).not.toContain(SECRET);
			// Every POST reached Sophos and was answered: JSON ones by our 403, whose
			// Cross-Origin-Resource-Policy also hides it from a no-cors reader; text/plain ones (the
			// beacon too) by SvelteKit's own 403 for cross-site forms. The DELETE never left: its
			// preflight gets no CORS answer. What proves the guard is below: nothing changed.
			await posted;
			const posts = outcomes.filter((o) => o.startsWith('POST '));
			expect(posts).toHaveLength(POSTS);
			for (const o of posts) expect(o).toMatch(/ (403|net::ERR_BLOCKED_BY_RESPONSE\.NotSameOrigin)$/);
			expect(posts.filter((o) => o.startsWith('POST /api/chat '))).toHaveLength(3);
			expect(outcomes).toContain(`DELETE /api/conversations/${conversation} net::ERR_FAILED`);
			expect(results.find((r) => r.what === 'delete')?.status).toBe('failed');
		} finally {
			await context.close();
			await attacker.close();
		}
		expect(await state()).toBe(before);
		expect((await (await service.fetch(`/api/conversations/${conversation}`)).json()).conversation.status).toBe('running');
	});

	it("a hostile page's EventSources hold none of the run's MAX_STREAMS_PER_RUN streams (issue 21)", async () => {
		const sophos = `http://127.0.0.1:${service.port}`;
		const url = `${sophos}/api/chat?conversation=${conversation}`;
		// As many as the run allows (the default, 10), kept open by the page for as long as it lives.
		const script = `window.__failed = 0; window.__sources = Array.from({ length: 10 }, () => {
			const s = new EventSource(${JSON.stringify(url)});
			s.onerror = () => { if (s.readyState === EventSource.CLOSED) window.__failed++; };
			return s;
		});`;
		const attacker = await PageServer.start({ '/': `<!doctype html><title>cats</title><script>${script}</script>` });
		const context = await browser.newContext();
		const page = await context.newPage();
		try {
			await page.goto(`http://${ATTACKER}:${attacker.host.split(':')[1]!}/`);
			await page.waitForFunction(() => (window as unknown as { __failed: number }).__failed === 10);
			const controller = new AbortController();
			const own = await service.fetch(`/api/chat?conversation=${conversation}`, { signal: controller.signal });
			expect(own.status).toBe(200);
			controller.abort();
		} finally {
			await context.close();
			await attacker.close();
		}
	});

	it('leaves the attacked run to finish as it would have', async () => {
		ollama.release('live');
		const events = await followRun(service.url, conversation);
		expect(events.at(-1)).toMatchObject({ event: 'end', data: { conversation, status: 'completed' } });
		const { runs } = await (await service.fetch(`/api/conversations/${conversation}/runs`)).json();
		expect(runs).toEqual([expect.objectContaining({ id: run, status: 'completed' })]);
	});
});
