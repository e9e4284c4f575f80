import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, newChat, openPage, sendMessage, waitForIdle, type WatchedPage } from '../support/browser';
import type { Browser } from 'playwright-core';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';

// Issue 21: answers that froze the tab for 1 to 11 s while marked and DOMPurify worked on them.
const HOSTILE: Record<string, string> = {
	'star-a': '*a'.repeat(20_000),
	'underscore-a': '_a'.repeat(20_000),
	divs: '<div>'.repeat(20_000),
	'list-1000-deep': `${'- '.repeat(1_000)}a`,
	'list-100-deep-indented': Array.from({ length: 100 }, (_, i) => `${'  '.repeat(i)}- a`).join('\n'),
	'quote-1000-deep': `${'> '.repeat(1_000)}a`
};

describe('hostile Markdown cannot hang the page', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;
	let watched: WatchedPage;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start((request) => {
			const name = /md:([\w-]+)/.exec(currentTurn(request).user)?.[1] ?? '';
			const content = HOSTILE[name] ?? 'A **bold** claim and a list:\n\n- one\n- two';
			// Large chunks: the answer arrives in a few events, as a fast model's would.
			return { content, chunkChars: 50_000 };
		});
		service = await Service.start({ ollamaUrl: ollama.url });
		browser = await launchBrowser();
		watched = await openPage(browser, service.url);
	});
	afterAll(async () => {
		await watched?.context.close();
		await browser?.close();
		await service?.stop();
		await ollama?.close();
	});

	it.each(Object.keys(HOSTILE))('%s: shown as its text, and the page goes on answering', async (name) => {
		const { page } = watched;
		await newChat(page);
		await sendMessage(page, `md:${name}`);
		await waitForIdle(page);
		// The page's own thread is free: it runs a script and answers.
		expect(await page.evaluate(() => document.querySelectorAll('[data-testid="assistant-message"]').length)).toBeGreaterThan(0);
		const answer = page.getByTestId('assistant-message').last();
		expect(await answer.locator('.markdown.plain').count()).toBe(1);
		expect(await answer.locator('.markdown.plain').textContent()).toBe(HOSTILE[name]);
		expect(watched.pageErrors).toEqual([]);
	});

	it('an ordinary answer still renders as Markdown', async () => {
		const { page } = watched;
		await newChat(page);
		await sendMessage(page, 'md:ordinary');
		await waitForIdle(page);
		const answer = page.getByTestId('assistant-message').last();
		expect(await answer.locator('strong').textContent()).toBe('bold');
		expect(await answer.locator('li').allTextContents()).toEqual(['one', 'two']);
	});
});
