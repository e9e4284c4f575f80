import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openPage, screenshot, sendMessage, waitForExactText, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

const WIDE_ANSWER = [
	'Here is a long line of code:',
	'```sh\ncurl --silent --show-error --location https://example.com/a/very/long/path/that/does/not/wrap/at/all?with=query&and=more&params=true\n```',
	'| Column one | Column two | Column three | Column four | Column five | Column six |\n|---|---|---|---|---|---|\n| a long cell value | another long cell value | more | more | more | the end |',
	'A link: https://example.com/an/extremely/long/url/without/any/spaces/that/keeps/going/and/going/and/going',
	'Averyveryveryveryveryveryveryveryveryveryveryveryverylongwordwithoutanybreakopportunity.'
].join('\n\n');

function horizontalOverflow(page: Page) {
	return page.evaluate(() => {
		const over = (el: Element) => el.scrollWidth - el.clientWidth;
		return {
			document: over(document.documentElement),
			messages: over(document.querySelector('[data-testid="message-list"]')!)
		};
	});
}

describe('layout and keyboard', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript(WIDE_ANSWER)));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('Enter sends; Shift+Enter starts a new line', async () => {
		ollama.script = answerScript('Two lines received.');
		const { context, page, requests } = await openPage(browser, service.url);
		const posts = () => requests.filter((u) => new URL(u).pathname === '/api/chat' && !u.includes('?'));
		try {
			const input = page.getByTestId('chat-input');
			expect(await page.getByTestId('send-button').isDisabled()).toBe(true);
			await input.click();
			await page.keyboard.type('line one');
			await page.keyboard.press('Shift+Enter');
			await page.keyboard.type('line two');
			expect(await input.inputValue()).toBe('line one\nline two');
			expect(posts()).toEqual([]);
			expect(await page.getByTestId('send-button').isDisabled()).toBe(false);

			await page.keyboard.press('Enter');
			await waitForExactText(page, 'user-message', 'line one\nline two');
			expect(await input.inputValue()).toBe('');
			await waitForIdle(page);
			expect(posts()).toHaveLength(1);
			expect(await input.evaluate((el) => el === document.activeElement)).toBe(true);
		} finally {
			await context.close();
		}
	});

	it('at 360 px nothing scrolls sideways, and the conversation list opens as a drawer', async () => {
		ollama.script = answerScript(WIDE_ANSWER);
		const { context, page } = await openPage(browser, service.url, { width: 360, height: 740 });
		try {
			// The page opened the newest conversation; New chat is in the drawer, as on a phone.
			expect(await page.getByTestId('conversation-sidebar').isVisible()).toBe(false);
			await page.getByTestId('sidebar-toggle').click();
			await page.getByTestId('new-chat-button').click();
			await page.getByTestId('empty-state').waitFor();
			await page.getByTestId('conversation-sidebar').waitFor({ state: 'hidden' });
			expect(await horizontalOverflow(page)).toEqual({ document: 0, messages: 0 });
			await screenshot(page, 'mobile-empty');

			await sendMessage(page, 'Show me something wide');
			await waitForIdle(page);
			await page.getByTestId('assistant-message').getByText('Here is a long line').waitFor();
			expect(await horizontalOverflow(page)).toEqual({ document: 0, messages: 0 });
			await screenshot(page, 'mobile-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'mobile-dark');

			await page.getByTestId('sidebar-toggle').click();
			const sidebar = page.getByTestId('conversation-sidebar');
			await sidebar.waitFor();
			expect(await page.getByTestId('sidebar-toggle').getAttribute('aria-expanded')).toBe('true');
			await page.waitForFunction(() => document.getElementById('sidebar')!.getBoundingClientRect().left === 0);
			await screenshot(page, 'mobile-sidebar');
			expect(await horizontalOverflow(page)).toEqual({ document: 0, messages: 0 });
			await page.getByTestId('conversation-item').first().getByRole('button', { name: /^Show me something wide/ }).click();
			await sidebar.waitFor({ state: 'hidden' });
		} finally {
			await context.close();
		}
	});

	it('gives every control an accessible name', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await page.getByTestId('assistant-message').first().waitFor();
			const unnamed = await page.evaluate(() => {
				const controls = document.querySelectorAll('button, a[href], textarea, input, select, summary, [role="button"]');
				return [...controls]
					.filter((el) => {
						const label = el.getAttribute('aria-label') ?? '';
						const labelledBy = el.getAttribute('aria-labelledby');
						const byId = labelledBy ? (document.getElementById(labelledBy)?.textContent ?? '') : '';
						return !(label.trim() || byId.trim() || (el.textContent ?? '').trim() || el.getAttribute('title')?.trim());
					})
					.map((el) => el.outerHTML.slice(0, 120));
			});
			expect(unnamed).toEqual([]);
			expect(await page.getByRole('textbox', { name: 'Chat input' }).count()).toBe(1);
			expect(await page.getByRole('button', { name: 'Start new conversation' }).count()).toBe(1);
			expect(await page.getByRole('button', { name: 'Send message' }).count()).toBe(1);
			expect(await page.getByRole('navigation', { name: 'Conversations' }).count()).toBe(1);
		} finally {
			await context.close();
		}
	});
});
