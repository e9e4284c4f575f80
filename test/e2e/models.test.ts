import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newChat, openPage, screenshot, sendMessage, textsOf, waitForIdle } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { ScriptedOpenAI } from '../support/scripted-openai';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

/** The composer's model picker, remembered per conversation, and the usage line under each answer. */
describe('choosing a model on the page', () => {
	let ollama: ScriptedOllama;
	let openai: ScriptedOpenAI;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Ollama answers.'));
		openai = await ScriptedOpenAI.start(answerScript('The OpenAI-compatible server answers.', { thinking: 'Short thought.' }));
		service = await Service.start({ ollamaUrl: ollama.url, env: { OPENAI_BASE_URL: openai.url } });
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
		await service?.stop();
		await Promise.all([ollama?.close(), openai?.close()]);
	});

	it('answers with the picked model, shows its usage, and keeps the pick for the conversation', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			const picker = page.getByTestId('model-picker');
			await page.waitForFunction(() => (document.querySelector('[data-testid="model-picker"]') as HTMLSelectElement | null)?.value === 'ollama/qwen3');
			expect(await picker.locator('option').allTextContents()).toEqual(['ollama/qwen3', 'openai/qwen3-8b']);

			await sendMessage(page, 'first');
			await waitForIdle(page);
			expect((await textsOf(page, 'answer-usage'))[0]).toMatch(/^ollama\/qwen3 · 20 → 5 tokens · [\d.]+ tok\/s · first token [\d.]+ ms$/);

			await picker.selectOption('openai/qwen3-8b');
			await sendMessage(page, 'second');
			await waitForIdle(page);
			const usage = await textsOf(page, 'answer-usage');
			expect(usage).toHaveLength(2);
			expect(usage[1]).toMatch(/^openai\/qwen3-8b · 40 → 14 tokens · [\d.]+ tok\/s · first token [\d.]+ ms$/);
			expect(openai.requests).toHaveLength(1);

			await page.getByTestId('timeline-toggle').click();
			expect(await page.getByTestId('run-usage').textContent()).toMatch(/^1 model call · 40 → 14 tokens · [\d.]+ ms$/);
			await screenshot(page, 'model-picker-usage');

			// The conversation keeps its model: after a reload the picker shows it again.
			await page.reload();
			await page.waitForFunction(() => (document.querySelector('[data-testid="model-picker"]') as HTMLSelectElement | null)?.value === 'openai/qwen3-8b');
			await newChat(page);
			expect(await picker.inputValue()).toBe('ollama/qwen3');
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
