import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openPage, screenshot, sendMessage, startBrowserStack, stopBrowserStack, textsOf, waitForExactText, waitForIdle } from '../support/browser';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { testMcpConfig } from '../support/test-config';

/** "save <item>" calls the non-idempotent test write, then answers; other messages get a numbered answer. */
function script(): Script {
	let n = 0;
	return (request) => {
		const { user, after } = currentTurn(request);
		const save = /^save (\w+)/.exec(user);
		if (save && !after.some((m) => m.role === 'tool')) return { toolCalls: [{ name: 'test__effect', arguments: { item: save[1] } }] };
		return { content: `Answer ${++n} to ${user}.` };
	};
}

const activeTestId = (page: Page) => page.evaluate(() => document.activeElement?.getAttribute('data-testid') ?? null);

describe('branches on the page', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;
	const config = testMcpConfig();

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(script(), { configDir: config.configDir }));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('edits a message in place (Escape cancels, Enter sends), and the switcher, by keyboard, keeps its choice across a reload', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'one');
			await waitForIdle(page);
			await sendMessage(page, 'two');
			await waitForIdle(page);
			await page.getByTestId('assistant-message').getByText('Answer 2 to two.').waitFor();

			const second = page.getByTestId('edit-message').nth(1);
			await second.click();
			const editor = page.getByTestId('edit-input');
			expect(await activeTestId(page)).toBe('edit-input');
			expect(await editor.inputValue()).toBe('two');
			await editor.fill('never sent');
			await editor.press('Escape');
			await page.getByTestId('edit-form').waitFor({ state: 'detached' });
			expect(await activeTestId(page)).toBe('edit-message');
			expect(await textsOf(page, 'user-message')).toEqual(['one', 'two']);

			await second.click();
			await page.getByTestId('edit-input').fill('dos');
			await screenshot(page, 'branch-editing');
			await page.getByTestId('edit-input').press('Enter');
			await page.getByTestId('assistant-message').getByText('Answer 3 to dos.').waitFor();
			await waitForIdle(page);
			expect(await textsOf(page, 'user-message')).toEqual(['one', 'dos']);
			expect(await textsOf(page, 'version-count')).toEqual(['2/2']);
			await screenshot(page, 'branch-versions');

			// From the edit button, Shift+Tab reaches the switcher (its Next is disabled on the last version).
			await page.getByTestId('edit-message').nth(1).focus();
			await page.keyboard.press('Shift+Tab');
			expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Previous version');
			await page.keyboard.press('Enter');
			await page.getByTestId('assistant-message').getByText('Answer 2 to two.').waitFor();
			expect(await textsOf(page, 'user-message')).toEqual(['one', 'two']);
			expect(await textsOf(page, 'version-count')).toEqual(['1/2']);
			await waitForExactText(page, 'conversation-count', '4 messages');

			await page.reload();
			await page.getByTestId('assistant-message').getByText('Answer 2 to two.').waitFor();
			expect(await textsOf(page, 'user-message')).toEqual(['one', 'two']);
			expect(await textsOf(page, 'version-count')).toEqual(['1/2']);
			await page.getByTestId('version-next').focus();
			await page.keyboard.press('Space');
			await page.getByTestId('assistant-message').getByText('Answer 3 to dos.').waitFor();
			expect(await textsOf(page, 'user-message')).toEqual(['one', 'dos']);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('regenerates an answer: the repeated write is reused, not made again, and the old version is one click away', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await page.getByTestId('new-chat-button').click();
			await sendMessage(page, 'save a');
			await waitForIdle(page);
			const before = await page.getByTestId('assistant-message').allTextContents();
			expect(config.calls().filter((l) => l.startsWith('effect'))).toHaveLength(1);
			expect(await page.getByTestId('version-switcher').count()).toBe(0);

			await page.getByTestId('regenerate').click();
			await waitForIdle(page);
			await page.getByTestId('tool-reused-badge').waitFor();
			expect(config.calls().filter((l) => l.startsWith('effect'))).toHaveLength(1);
			// The versions come with the conversation the page reads once the run has ended, which may follow the badge.
			await page.getByTestId('version-count').waitFor();
			expect(await textsOf(page, 'version-count')).toEqual(['2/2']);
			expect(await page.getByTestId('assistant-message').allTextContents()).not.toEqual(before);
			await page.getByTestId('tool-call').locator('summary').click();
			await page.getByTestId('tool-reused').waitFor();
			await screenshot(page, 'branch-reused-tool');

			await page.getByTestId('tool-reused').getByRole('button', { name: 'Show that branch' }).click();
			await page.getByTestId('tool-reused-badge').waitFor({ state: 'detached' });
			expect(await page.getByTestId('assistant-message').allTextContents()).toEqual(before);
			expect(await textsOf(page, 'version-count')).toEqual(['1/2']);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
