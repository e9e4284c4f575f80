import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { newChat, openPage, screenshot, sendMessage, textsOf, waitForExactText, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';

const ANSWER = 'The **answer** is forty-two. It was computed from first principles.';
const ANSWER_TEXT = 'The answer is forty-two. It was computed from first principles.';

describe('chatting', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript(ANSWER), { env: { OLLAMA_THINK: 'true' } }));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('streams the answer as it comes, then shows it from durable state after a reload', async () => {
		ollama.script = answerScript(ANSWER, { hold: 'stream', holdAfterChunks: 5 });
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await page.getByTestId('empty-state').waitFor();
			await screenshot(page, 'empty-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'empty-dark');
			await page.emulateMedia({ colorScheme: 'light' });

			await sendMessage(page, 'What is the answer?');
			await ollama.held('stream');
			// Five chunks of four characters: "The **answer** is fo", rendered as Markdown.
			await waitForExactText(page, 'assistant-message', 'The answer is fo');
			await page.getByTestId('status-responding').waitFor();
			await page.getByTestId('stop-button').waitFor();
			expect(await textsOf(page, 'user-message')).toEqual(['What is the answer?']);
			await screenshot(page, 'streaming');

			ollama.release('stream');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', ANSWER_TEXT);
			expect(await page.getByTestId('assistant-message').locator('strong').textContent()).toBe('answer');

			await page.reload();
			await waitForExactText(page, 'assistant-message', ANSWER_TEXT);
			expect(await textsOf(page, 'user-message')).toEqual(['What is the answer?']);
			const item = page.getByTestId('conversation-item');
			expect(await item.getByTestId('conversation-title').textContent()).toBe('What is the answer?');
			expect(await item.getByTestId('conversation-count').textContent()).toBe('2 messages');
			expect(await item.locator('time').textContent()).toBe('just now');
			expect(await page.getByTestId('current-title').textContent()).toBe('What is the answer?');
			expect(new URL(page.url()).searchParams.get('c')).toMatch(/^[0-9a-f-]{36}$/);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('shows the steps of a run that ended before its stream opened', async () => {
		ollama.script = answerScript('Done at once.');
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			// The page's stream is held until the run has ended and left the service's registry (a stream
			// that names no run then gets the bare end), as when a fast model beats the connection.
			await page.route(/\/api\/chat\?/, async (route) => {
				const conversation = new URL(route.request().url()).searchParams.get('conversation')!;
				await expect.poll(async () => (await followRun(service.url, conversation)).map((e) => e.event), { timeout: 60_000 }).toEqual(['end']);
				await route.continue();
			});
			await newChat(page);
			await sendMessage(page, 'Quick one');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', 'Done at once.');
			await page.getByTestId('timeline-toggle').click();
			expect(await page.getByTestId('timeline-entry').count()).toBeGreaterThan(0);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('shows a waiting indicator until the first output arrives', async () => {
		ollama.script = answerScript('Hello.', { hold: 'first', holdAfterChunks: 0 });
		const { context, page } = await openPage(browser, service.url);
		try {
			await page.getByTestId('new-chat-button').click();
			await sendMessage(page, 'Say hello');
			await ollama.held('first');
			await page.getByTestId('assistant-pending').waitFor();
			ollama.release('first');
			await waitForExactText(page, 'assistant-message', 'Hello.');
			expect(await page.getByTestId('assistant-pending').count()).toBe(0);
		} finally {
			await context.close();
		}
	});

	it('shows the model’s thinking in a collapsible block, live and after a reload', async () => {
		ollama.script = answerScript('Four.', { thinking: 'Two plus two is four.', hold: 'think', holdAfterChunks: 0 });
		const { context, page } = await openPage(browser, service.url);
		try {
			await page.getByTestId('new-chat-button').click();
			await sendMessage(page, 'What is 2+2?');
			await ollama.held('think');
			const block = page.getByTestId('thinking-block');
			await waitForExactText(page, 'thinking-text', 'Two plus two is four.');
			expect(await block.locator('summary').textContent()).toContain('Thinking…');
			expect(await block.getAttribute('open')).toBeNull();
			await block.locator('summary').click();
			expect(await page.getByTestId('thinking-text').isVisible()).toBe(true);

			ollama.release('think');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', 'Four.');
			await page.reload();
			await waitForExactText(page, 'assistant-message', 'Four.');
			expect((await page.getByTestId('thinking-block').locator('summary').textContent())?.trim()).toBe('Thinking');
			expect(await page.getByTestId('thinking-text').textContent()).toBe('Two plus two is four.');
		} finally {
			await context.close();
		}
	});

	it('follows the answer to the end, and stops following while the reader scrolls up', async () => {
		const long = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}.`).join('\n\n');
		ollama.script = answerScript(long, { hold: 'scroll', holdAfterChunks: 200, chunkChars: 2 });
		const { context, page } = await openPage(browser, service.url, { height: 600 });
		try {
			await page.getByTestId('new-chat-button').click();
			await sendMessage(page, 'Write a lot');
			await ollama.held('scroll');
			await page.getByTestId('assistant-message').getByText('Paragraph 19.').waitFor();
			const list = page.getByTestId('message-list');
			const atEnd = () => list.evaluate((el) => el.scrollHeight - el.scrollTop - el.clientHeight <= 48);
			expect(await atEnd()).toBe(true);

			await list.evaluate((el) => el.scrollTo({ top: 0 }));
			await page.getByTestId('scroll-to-bottom').waitFor();
			ollama.release('scroll');
			await waitForIdle(page);
			await page.getByTestId('assistant-message').getByText('Paragraph 59.').waitFor();
			expect(await list.evaluate((el) => el.scrollTop)).toBe(0);

			await page.getByTestId('scroll-to-bottom').click();
			expect(await atEnd()).toBe(true);
		} finally {
			await context.close();
		}
	});
});
