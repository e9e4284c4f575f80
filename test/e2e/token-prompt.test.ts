import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPage, screenshot, sendMessage, startBrowserStack, stopBrowserStack, waitForExactText, waitForIdle, type BrowserStack } from '../support/browser';
import { answerScript } from '../support/scripts';

const TOKEN = 'cHJvbXB0LXRlc3QtdG9rZW4tMDEyMzQ1Njc4OQ';

/** Issue 13: with SOPHOS_TOKEN set, the page asks for it once, by keyboard, and then just works. */
describe('the token prompt', () => {
	let stack: BrowserStack;

	beforeAll(async () => {
		stack = await startBrowserStack(answerScript('Signed in and streaming.'), { env: { SOPHOS_TOKEN: TOKEN } });
	});
	afterAll(() => stopBrowserStack(stack));

	it('asks for the token, refuses a wrong one, keeps the right one in an HttpOnly cookie, and streams', async () => {
		const { context, page, pageErrors } = await openPage(stack.browser, stack.service.url);
		try {
			const prompt = page.getByTestId('token-prompt');
			await prompt.waitFor();
			expect(await page.getByTestId('conversation-item').count()).toBe(0);
			await page.locator('#token-input:focus').waitFor();
			await screenshot(page, 'token-prompt');

			// By keyboard alone: type, Enter; Escape does not get past the prompt.
			await page.keyboard.press('Escape');
			await prompt.waitFor();
			await page.keyboard.type('not-the-right-token');
			await page.keyboard.press('Enter');
			await waitForExactText(page, 'token-error', 'That is not the token.');
			await page.keyboard.press('Tab');
			expect(await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))).toBe('token-submit');
			await page.keyboard.press('Shift+Tab');
			await page.keyboard.press('Control+A');
			await page.keyboard.type(TOKEN);
			await Promise.all([page.waitForEvent('load'), page.keyboard.press('Enter')]);
			await page.locator('[data-testid="app"][data-started="true"]').waitFor({ state: 'attached' });
			expect(await prompt.isVisible()).toBe(false);

			const cookies = await context.cookies();
			expect(cookies).toEqual([
				expect.objectContaining({ name: 'sophos_session', value: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/), httpOnly: true, sameSite: 'Strict', secure: false, path: '/' })
			]);
			// A session id, never the token itself (issue 21).
			expect(cookies[0]!.value).not.toContain(TOKEN);
			expect(await page.evaluate(() => document.cookie)).toBe('');

			// The EventSource carries the cookie: the answer streams in.
			await sendMessage(page, 'Are you there?');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', 'Signed in and streaming.');

			await page.reload();
			await waitForExactText(page, 'assistant-message', 'Signed in and streaming.');
			expect(await prompt.isVisible()).toBe(false);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
