import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { newChat, openPage, screenshot, sendMessage, textsOf, waitForIdle, watchPage, startBrowserStack, stopBrowserStack } from '../support/browser';
import type { Script } from '../support/scripted-ollama';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { testMcpConfig } from '../support/test-config';

/**
 * "save a and b" asks for test__effect once per item, all in one step (a write, so each call
 * waits under the default TOOL_APPROVAL=writes); once the step has its results the model answers
 * with them, so a denial's reason shows in the answer the page renders.
 */
const saveScript: Script = (request) => {
	const { user, after } = currentTurn(request);
	const items = /^save (.+)$/.exec(user)?.[1]?.split(' and ') ?? [];
	if (items.length && !after.some((m) => m.role === 'assistant')) {
		return { toolCalls: items.map((item) => ({ name: 'test__effect', arguments: { item } })) };
	}
	const results = after.filter((m) => m.role === 'tool').map((m) => m.content);
	return { content: `Results: ${results.join(' | ') || 'none'}` };
};

/** POST /api/chat bodies the page sent that carry decisions. */
function watchDecisions(page: Page): unknown[][] {
	const posts: unknown[][] = [];
	page.on('request', (r) => {
		if (r.method() !== 'POST' || new URL(r.url()).pathname !== '/api/chat') return;
		const body = r.postDataJSON() as { decisions?: unknown[] };
		if (body.decisions) posts.push(body.decisions);
	});
	return posts;
}

/** Sends `text` and waits until its run has ended waiting and the card is on screen. */
async function sendAndWait(page: Page, text: string): Promise<void> {
	await sendMessage(page, text);
	await waitForIdle(page);
	await page.getByTestId('approval-card').waitFor();
}

async function answered(page: Page, text: string): Promise<void> {
	await waitForIdle(page);
	await page.getByTestId('assistant-message').filter({ hasText: text }).waitFor();
}

const activeTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);

describe('approving tool calls in the page', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;
	// No approval override: TOOL_APPROVAL=writes decides, so the `effect` write waits for a person.
	const mcp = testMcpConfig({ approval: undefined });
	const effects = (item: string) => mcp.calls().filter((line) => line.startsWith('effect ') && line.endsWith(` ${item}`));

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(saveScript, { configDir: mcp.configDir }));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('shows the waiting call with its tool, arguments and reason; Approve from the keyboard runs it once', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await sendAndWait(page, 'save apple');
			const card = page.getByTestId('approval-card');
			expect(await textsOf(page, 'approval-tool')).toEqual(['test__effect']);
			expect(await card.getByTestId('approval-args').textContent()).toBe('{\n  "item": "apple"\n}');
			expect(await card.getByTestId('approval-reason').textContent()).toBe('test__effect may change something outside this conversation.');
			expect(await page.getByTestId('tool-call').getAttribute('data-status')).toBe('awaiting');
			expect(await page.getByTestId('conversation-item').first().getByTestId('conversation-status').textContent()).toBe('Needs approval');
			await page.getByTestId('status-awaiting').waitFor();
			expect(await page.getByTestId('resume-button').count()).toBe(0);
			expect(effects('apple')).toEqual([]);
			await screenshot(page, 'approval-card-light');

			// Tab order: back from the message box, the card's buttons come last to first.
			await page.getByTestId('chat-input').focus();
			const order: (string | null)[] = [];
			for (let i = 0; i < 4; i++) {
				await page.keyboard.press('Shift+Tab');
				order.push(await activeTestId(page));
			}
			expect(order).toEqual(['approval-always', 'approval-edit', 'approval-deny', 'approval-approve']);
			expect(await page.evaluate(() => getComputedStyle(document.activeElement!).outlineStyle)).not.toBe('none');
			await page.keyboard.press('Enter');

			await answered(page, 'Results: saved apple');
			expect(await activeTestId(page)).toBe('chat-input');
			expect(effects('apple')).toHaveLength(1);
			expect(await page.getByTestId('approval-card').count()).toBe(0);
			expect(await page.getByTestId('tool-call').getAttribute('data-status')).toBe('success');
			expect(await page.getByTestId('conversation-item').first().getByTestId('conversation-status').count()).toBe(0);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('Deny takes an optional reason (Escape backs out), runs nothing, and the model answers with it', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await newChat(page);
			await sendAndWait(page, 'save banana');
			await page.getByTestId('approval-deny').click();
			expect(await activeTestId(page)).toBe('approval-reason-input');
			await page.keyboard.press('Escape');
			expect(await page.getByTestId('approval-reason-input').count()).toBe(0);
			expect(await activeTestId(page)).toBe('approval-deny');

			await page.keyboard.press('Enter');
			await page.keyboard.type('not today');
			await page.keyboard.press('Enter');
			await answered(page, 'Results: Not run: the person denied this call (not today).');
			expect(effects('banana')).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('Edit arguments refuses JSON that does not parse, saying why, and runs the call with the edited arguments', async () => {
		const { context, page } = await openPage(browser, service.url);
		const decisions = watchDecisions(page);
		try {
			await newChat(page);
			await sendAndWait(page, 'save cherry');
			await page.getByTestId('approval-edit').click();
			const editor = page.getByTestId('approval-args-input');
			expect(await editor.inputValue()).toBe('{\n  "item": "cherry"\n}');
			await editor.fill('{"item": ');
			await page.getByTestId('approval-submit').click();
			const problem = page.getByTestId('approval-problem');
			expect(await problem.textContent()).toMatch(/^This is not valid JSON: /);
			expect(await editor.getAttribute('aria-invalid')).toBe('true');
			await editor.fill('["cherry"]');
			await page.getByTestId('approval-submit').click();
			expect(await problem.textContent()).toBe('The arguments must be one JSON object, such as {"item": "value"}.');
			expect(decisions).toEqual([]);

			await editor.fill('{"item": "cherry pie"}');
			await editor.press('Control+Enter');
			await answered(page, 'Results: saved cherry pie');
			expect(decisions).toEqual([[{ toolCallId: expect.any(String), action: 'edit', args: { item: 'cherry pie' } }]]);
			expect(effects('cherry pie')).toHaveLength(1);
			expect(effects('cherry')).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('decides the calls of one step together, in one submit', async () => {
		const { context, page } = await openPage(browser, service.url);
		const decisions = watchDecisions(page);
		try {
			await newChat(page);
			await sendAndWait(page, 'save plum and pear');
			expect(await page.getByRole('heading', { name: '2 tool calls need your approval' }).count()).toBe(1);
			expect(await page.getByTestId('approval-call').count()).toBe(2);
			await page.getByTestId('approval-submit').click();
			expect(await textsOf(page, 'approval-problem')).toEqual([
				'Choose Approve, Deny, Edit arguments or Always allow for this call.',
				'Choose Approve, Deny, Edit arguments or Always allow for this call.'
			]);
			const [plum, pear] = [page.getByTestId('approval-call').nth(0), page.getByTestId('approval-call').nth(1)];
			await plum.getByTestId('approval-approve').click();
			expect(await plum.getByTestId('approval-approve').getAttribute('aria-pressed')).toBe('true');
			await pear.getByTestId('approval-deny').click();
			await pear.getByTestId('approval-reason-input').fill('one is enough');
			expect(decisions).toEqual([]);
			await screenshot(page, 'approval-several-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'approval-several-dark');
			await page.getByRole('button', { name: 'Submit 2 decisions' }).click();
			await answered(page, 'Results: saved plum | Not run: the person denied this call (one is enough).');
			expect(decisions).toEqual([
				[
					{ toolCallId: expect.any(String), action: 'approve' },
					{ toolCallId: expect.any(String), action: 'deny', reason: 'one is enough' }
				]
			]);
			expect(effects('plum')).toHaveLength(1);
			expect(effects('pear')).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('Always allow runs the call and stops asking for the tool until it is revoked in the list', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await newChat(page);
			await sendAndWait(page, 'save fig');
			await page.getByTestId('approval-always').click();
			await answered(page, 'Results: saved fig');

			await sendMessage(page, 'save grape');
			await answered(page, 'Results: saved grape');
			expect(await page.getByTestId('approval-card').count()).toBe(0);
			expect(effects('grape')).toHaveLength(1);

			await page.getByTestId('allowed-tools-toggle').click();
			await page.getByTestId('allowed-tool').waitFor();
			expect(await textsOf(page, 'allowed-tool-name')).toEqual(['test__effect']);
			await page.getByRole('button', { name: 'Revoke always allow for test__effect' }).click();
			await page.getByTestId('allowed-tools-empty').waitFor();
			expect(await (await page.request.get('/api/allowed-tools')).json()).toEqual({ allowed: [] });
			// The revoked tool's button is gone: focus is back on the list's toggle, where Escape closes it.
			expect(await activeTestId(page)).toBe('allowed-tools-toggle');
			await page.keyboard.press('Escape');
			expect(await page.getByTestId('allowed-tools').getAttribute('open')).toBeNull();

			await sendAndWait(page, 'save kiwi');
			expect(effects('kiwi')).toEqual([]);
			await page.getByTestId('approval-deny').click();
			await page.getByTestId('approval-submit').click();
			await answered(page, 'Results: Not run: the person denied this call.');
		} finally {
			await context.close();
		}
	});

	it('at 360 px the card and the sidebar badge read without scrolling sideways', async () => {
		const { context, page } = await openPage(browser, service.url, { width: 360, height: 740 });
		try {
			await page.getByTestId('sidebar-toggle').click();
			await newChat(page);
			await sendAndWait(page, 'save a-very-long-item-name-that-has-no-spaces-so-it-must-wrap-somewhere-inside-the-card and pear');
			const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
			expect(await overflow()).toBe(0);
			const card = page.getByTestId('approval-card');
			const box = (await card.boundingBox())!;
			expect(box.x).toBeGreaterThanOrEqual(0);
			expect(box.x + box.width).toBeLessThanOrEqual(360);
			const unnamed = await card.evaluate((el) =>
				[...el.querySelectorAll('button, input, textarea')].filter((c) => !(c.getAttribute('aria-label') || c.textContent?.trim() || c.id)).length
			);
			expect(unnamed).toBe(0);
			await card.scrollIntoViewIfNeeded();
			await screenshot(page, 'approval-mobile-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'approval-mobile-dark');

			await page.getByTestId('sidebar-toggle').click();
			await page.waitForFunction(() => document.getElementById('sidebar')!.getBoundingClientRect().left === 0);
			expect(await page.getByTestId('conversation-item').first().getByTestId('conversation-status').textContent()).toBe('Needs approval');
			expect(await overflow()).toBe(0);
			await screenshot(page, 'approval-mobile-sidebar');
		} finally {
			await context.close();
		}
	});

	// Last: it restarts the service the other tests share.
	it('the card is back after a reload, in a second tab and after a restart; a stale tab is told it was decided', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await newChat(page);
			await sendAndWait(page, 'save lime');
			const id = new URL(page.url()).searchParams.get('c');

			await page.reload();
			await page.getByTestId('approval-card').waitFor();
			expect(await textsOf(page, 'approval-args')).toEqual(['{\n  "item": "lime"\n}']);

			const second = await context.newPage();
			const watched = { requests: [] as string[], dialogs: [], pageErrors: [] as string[], consoleErrors: [] };
			watchPage(watched, second);
			await second.goto(`/?c=${id}`);
			await second.getByTestId('approval-card').waitFor();
			expect(await textsOf(second, 'approval-tool')).toEqual(['test__effect']);

			await service.kill();
			service = await service.restart();
			await page.reload();
			await page.getByTestId('approval-card').waitFor();
			expect(await page.getByTestId('conversation-item').first().getByTestId('conversation-status').textContent()).toBe('Needs approval');
			expect(effects('lime')).toEqual([]);

			await page.getByTestId('approval-approve').click();
			await answered(page, 'Results: saved lime');
			// The second tab still shows the card it loaded; its Approve finds the calls decided.
			await second.getByTestId('approval-approve').click();
			await second.getByTestId('notice-message').waitFor();
			expect(await second.getByTestId('notice-message').textContent()).toContain('already decided');
			await second.getByTestId('assistant-message').filter({ hasText: 'Results: saved lime' }).waitFor();
			expect(await second.getByTestId('approval-card').count()).toBe(0);
			expect(effects('lime')).toHaveLength(1);
			expect(watched.pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
