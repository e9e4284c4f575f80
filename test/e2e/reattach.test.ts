import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openPage, sendMessage, textsOf, waitForExactText, waitForIdle, watchPage, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { SUMMARY, answerScript, walkthroughScript } from '../support/scripts';
import { Service } from '../support/service';

// Numbered words: a gap or a repeat anywhere shows up in the exact text.
const WORDS = Array.from({ length: 120 }, (_, i) => `w${String(i).padStart(3, '0')}`).join(' ');
const HOLD_AT = 40;
const PREFIX = WORDS.slice(0, HOLD_AT * 4);

describe('reattaching to a live run', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript(WORDS)));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('a reload mid-stream shows the partial answer once and continues with no gap and no duplicate', async () => {
		ollama.script = answerScript(WORDS, { hold: 'reload', holdAfterChunks: HOLD_AT });
		const { context, page } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Count for me');
			await ollama.held('reload');
			await waitForExactText(page, 'assistant-message', PREFIX.trim());

			await page.reload();
			await waitForExactText(page, 'assistant-message', PREFIX.trim());
			await page.getByTestId('status-responding').waitFor();
			await page.getByTestId('stop-button').waitFor();
			expect(await textsOf(page, 'user-message')).toEqual(['Count for me']);

			ollama.release('reload');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', WORDS);
			expect(await page.getByTestId('assistant-message').count()).toBe(1);
		} finally {
			await context.close();
		}
	});

	it('a reload during a run with finished tool steps shows each step once', async () => {
		ollama.script = walkthroughScript({ url: 'https://example.com', fetch: false, answer: { hold: 'answer', holdAfterChunks: 3 } });
		const { context, page } = await openPage(browser, service.url);
		try {
			await page.getByTestId('new-chat-button').click();
			await sendMessage(page, 'Walk through it');
			await ollama.held('answer');
			await waitForExactText(page, 'assistant-message', 'Example Doma', 1);

			await page.reload();
			await waitForExactText(page, 'assistant-message', 'Example Doma', 1);
			expect(await page.getByTestId('tool-call').count()).toBe(3);
			expect(await textsOf(page, 'assistant-message')).toEqual(['Now I will save that summary to the knowledge graph.', 'Example Doma']);

			ollama.release('answer');
			await waitForIdle(page);
			await waitForExactText(page, 'assistant-message', `${SUMMARY} I saved it to the knowledge graph on the entity "example.com".`, 1);
			expect(await page.getByTestId('tool-call').count()).toBe(3);
			expect(await page.getByTestId('assistant-message').count()).toBe(2);
		} finally {
			await context.close();
		}
	});

	it('a second tab follows the same run to its end', async () => {
		ollama.script = answerScript(WORDS, { hold: 'tabs', holdAfterChunks: HOLD_AT });
		const first = await openPage(browser, service.url);
		try {
			await first.page.getByTestId('new-chat-button').click();
			await sendMessage(first.page, 'Count in two tabs');
			await ollama.held('tabs');
			await waitForExactText(first.page, 'assistant-message', PREFIX.trim());

			const second = await first.context.newPage();
			const watched = { requests: [] as string[], dialogs: [], pageErrors: [], consoleErrors: [] };
			watchPage(watched, second);
			await second.goto('/');
			await waitForExactText(second, 'assistant-message', PREFIX.trim());
			await second.getByTestId('status-responding').waitFor();
			expect(await textsOf(second, 'user-message')).toEqual(['Count in two tabs']);

			ollama.release('tabs');
			await waitForExactText(first.page, 'assistant-message', WORDS);
			await waitForExactText(second, 'assistant-message', WORDS);
			await waitForIdle(second);
			// The second tab only followed: it never started a run of its own.
			expect(watched.requests.filter((u) => u.endsWith('/api/chat'))).toEqual([]);
		} finally {
			await first.context.close();
		}
	});
});
