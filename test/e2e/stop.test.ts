import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, sendMessage, waitForExactText, waitForIdle } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

const ANSWER = 'One two three four five six seven eight nine ten.';

describe('stop', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript(ANSWER, { hold: 'stop', holdAfterChunks: 3 }));
		service = await Service.start({ ollamaUrl: ollama.url });
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await service?.stop();
		await ollama?.close();
	});

	it('detaches when the server has no cancel endpoint, says so, and can follow the run again', async () => {
		const { context, page, requests } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Count to ten');
			await ollama.held('stop');
			await waitForExactText(page, 'assistant-message', 'One two thre');

			await page.getByTestId('stop-button').click();
			const notice = page.getByTestId('notice-banner');
			await notice.waitFor();
			expect(await notice.getAttribute('aria-label')).toBe('Detached: the run goes on');
			expect(await page.getByTestId('notice-message').textContent()).toContain('cannot cancel runs');
			expect(requests.filter((u) => /\/api\/runs\/[0-9a-f-]+\/cancel$/.test(u))).toHaveLength(1);
			await page.getByTestId('send-button').waitFor();
			expect(await page.getByTestId('status-responding').count()).toBe(0);
			// The partial answer stays on screen, and the run still shows as running.
			expect((await page.getByTestId('assistant-message').textContent())?.trim()).toBe('One two thre');
			expect(await page.getByTestId('conversation-status').textContent()).toBe('Running');

			await page.getByTestId('follow-button').click();
			await page.getByTestId('status-responding').waitFor();
			await waitForExactText(page, 'assistant-message', 'One two thre');
			ollama.release('stop');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', ANSWER);
			expect(await page.getByTestId('notice-banner').count()).toBe(0);
		} finally {
			await context.close();
		}
	});
});
