import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openPage, sendMessage, waitForExactText, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

const ANSWER = 'One two three four five six seven eight nine ten.';

describe('stop', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript(ANSWER, { hold: 'stop', holdAfterChunks: 3 })));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('cancels the run: the partial answer stays, saved, and the page says the run stopped', async () => {
		const { context, page, requests } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Count to ten');
			await ollama.held('stop');
			await waitForExactText(page, 'assistant-message', 'One two thre');

			await page.getByTestId('stop-button').click();
			const notice = page.getByTestId('notice-banner');
			await notice.waitFor();
			expect(await notice.getAttribute('aria-label')).toBe('Run stopped');
			await waitForIdle(page);
			expect(requests.filter((u) => /\/api\/runs\/[0-9a-f-]+\/cancel$/.test(u))).toHaveLength(1);
			expect(await page.getByTestId('status-responding').count()).toBe(0);

			// What was streamed is now the saved answer: it survives a reload.
			await page.reload();
			await waitForExactText(page, 'assistant-message', 'One two thre');
			expect(await page.getByTestId('resume-banner').count()).toBe(0);
		} finally {
			ollama.release('stop');
			await context.close();
		}
	});
});
