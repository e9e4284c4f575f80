import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshot, sendMessage, waitForExactText, waitForIdle } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { SUMMARY, answerScript, walkthroughScript } from '../support/scripts';
import { Service } from '../support/service';

describe('a crash mid-run', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let restarted: Service | undefined;
	let browser: Browser;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(
			walkthroughScript({ url: 'https://example.com', fetch: false, second: { hold: 'step3', holdAfterChunks: 2 } })
		);
		service = await Service.start({ ollamaUrl: ollama.url });
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await restarted?.stop();
		await service?.stop();
		await ollama?.close();
	});

	it('after SIGKILL and a restart, the page offers Resume and the resumed run completes', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Look it up and save it');
			await ollama.held('step3');
			await waitForExactText(page, 'assistant-message', 'Now I wi');
			expect(await page.getByTestId('tool-call').count()).toBe(1);

			await service.kill();
			ollama.release('step3');
			await page.getByTestId('status-reconnecting').waitFor();

			// Same port and data: the page's own EventSource reconnects and learns the run was interrupted.
			restarted = await service.restart();
			await page.getByTestId('resume-banner').waitFor();
			await page.getByTestId('send-button').waitFor();
			const item = page.getByTestId('conversation-item');
			expect(await item.getByTestId('conversation-status').textContent()).toBe('Interrupted');
			// The durable state: the finished first step; the half-streamed step 3 was never saved.
			expect(await page.getByTestId('tool-call').count()).toBe(1);
			expect(await page.getByTestId('assistant-message').count()).toBe(0);
			await screenshot(page, 'resume-banner-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'resume-banner-dark');

			await page.getByTestId('resume-button').click();
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', `${SUMMARY} I saved it to the knowledge graph on the entity "example.com".`, 1);
			expect(await page.getByTestId('tool-call').evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))).toEqual([
				'success',
				'error',
				'success'
			]);
			expect(await page.getByTestId('resume-banner').count()).toBe(0);
			expect(await item.getByTestId('conversation-status').count()).toBe(0);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});

describe('a crash mid-run with AUTO_RESUME', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Cut short here.', { hold: 'crash', holdAfterChunks: 2 }));
		service = await Service.start({ ollamaUrl: ollama.url, env: { AUTO_RESUME: 'true' } });
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await service?.stop();
		await ollama?.close();
	});

	it('after SIGKILL and a restart, the page shows the resumed answer live on its own stream, with no Resume to press', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Keep going');
			await ollama.held('crash');
			await waitForExactText(page, 'assistant-message', 'Cut shor');

			await service.kill();
			ollama.release('crash');
			await page.getByTestId('status-reconnecting').waitFor();
			ollama.script = answerScript('Answer after the crash.', { hold: 'resumed', holdAfterChunks: 3 });
			service = await service.restart();
			// The page's EventSource comes back with the dead run's last id: the resumed run's first
			// events are all above it, so its answer shows from its first word while it streams.
			await ollama.held('resumed');
			await waitForExactText(page, 'assistant-message', 'Answer after', 1);
			expect(await page.getByTestId('resume-banner').count()).toBe(0);

			ollama.release('resumed');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', 'Answer after the crash.');
			expect(await page.getByTestId('assistant-message').count()).toBe(1);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
