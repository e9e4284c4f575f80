import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openPage, screenshot, startBrowserStack, stopBrowserStack, waitForIdle } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';
import { testMcpConfig } from '../support/test-config';

describe('MCP prompts and resources in the composer', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript('Read it.'), { configDir: testMcpConfig().configDir }));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('offers prompts on /, asks a prompt’s arguments in a form, and fills the box with its user messages', async () => {
		const { context, page, pageErrors, consoleErrors } = await openPage(browser, service.url);
		try {
			const input = page.getByTestId('chat-input');
			await input.fill('/rev');
			await page.getByTestId('prompt-menu').waitFor();
			expect(await page.getByTestId('prompt-option').evaluateAll((els) => els.map((e) => e.getAttribute('data-prompt')))).toEqual(['test__review']);
			await input.press('Enter');
			const form = page.getByTestId('prompt-form');
			await form.waitFor();
			// A required argument left blank is asked for before anything is sent.
			await page.getByTestId('prompt-use').click();
			expect(await page.getByTestId('prompt-error').textContent()).toBe('Fill in topic.');
			await form.locator('[data-argument="topic"]').fill('the plan');
			await form.locator('[data-argument="tone"]').press('Enter');
			await form.waitFor({ state: 'detached' });
			// The user message only: the prompt's assistant message is not the person's to send.
			expect(await input.inputValue()).toBe('Please review the plan.');
			await screenshot(page, 'prompt-filled');

			// A prompt without arguments fills the box at once, from the keyboard.
			await input.fill('/');
			await page.getByTestId('prompt-menu').waitFor();
			const names = await page.getByTestId('prompt-option').evaluateAll((els) => els.map((e) => e.getAttribute('data-prompt')));
			await page.keyboard.press('ArrowDown');
			expect(names.indexOf('test__hello')).toBe(1);
			await input.press('Enter');
			await page.waitForFunction(() => (document.querySelector('[data-testid="chat-input"]') as HTMLTextAreaElement).value === 'Say hello.');
			expect(pageErrors).toEqual([]);
			expect(consoleErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('attaches a resource to a message, which the thread then holds', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await page.getByTestId('attach-button').click();
			await page.locator('[data-testid="resource-option"][data-uri="test://notes/welcome"]').click();
			expect(await page.getByTestId('attachment').count()).toBe(1);
			await screenshot(page, 'resource-attached');
			const input = page.getByTestId('chat-input');
			await input.fill('Summarize this');
			await input.press('Enter');
			await page.getByTestId('assistant-message').getByText('Read it.').waitFor();
			await waitForIdle(page);
			expect(await page.getByTestId('attachment').count()).toBe(0);
			const shown = await page.getByTestId('user-message').last().textContent();
			expect(shown).toContain('Summarize this');
			expect(shown).toContain('Welcome to the test notes.');
			const sent = ollama.requests.at(-1)!.messages.filter((m) => m.role === 'user').at(-1)!.content;
			expect(sent).toBe('Summarize this\n\n<resource server="test" uri="test://notes/welcome">\nWelcome to the test notes.\n</resource>');
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
