import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openPage, sendMessage, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import type { Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { testMcpConfig } from '../support/test-config';
import type { ScriptedOllama } from '../support/scripted-ollama';
import type { Service } from '../support/service';

/** Every message calls the test server's `ask` tool; with its result the model answers with it. */
const askScript: Script = (request) => {
	const { after } = currentTurn(request);
	const result = after.find((m) => m.role === 'tool');
	if (result) return { content: `Tool said: ${result.content}` };
	return { toolCalls: [{ name: currentTurn(request).user.startsWith('open') ? 'test__ask_url' : 'test__ask', arguments: {} }] };
};

describe('a tool server\'s question in the page (MCP elicitation)', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;
	const mcp = testMcpConfig();

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(askScript, { configDir: mcp.configDir }));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('shows the form built from the schema, points at a field that fails it before sending, and sends what was filled in', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'who am I?');
			const card = page.getByTestId('elicitation-card');
			await card.waitFor();
			expect(await card.getByTestId('elicitation-message').textContent()).toBe('Who is asking?');
			expect(await card.getByLabel('Name *').count()).toBe(1);
			expect(await card.getByLabel('Tea?').count()).toBe(1);
			expect(await card.locator('select option').allTextContents()).toEqual(['—', 'Red', 'Green']);
			await card.getByLabel('Age').fill('200');
			await card.getByTestId('elicitation-submit').click();
			// The name is required and empty: named first, focused, and nothing is posted.
			expect(await card.getByTestId('elicitation-problem').textContent()).toBe('required');
			expect(await page.evaluate(() => document.activeElement?.id.endsWith('-name'))).toBe(true);
			await card.getByLabel('Name *').fill('Ada');
			await card.getByTestId('elicitation-submit').click();
			expect(await card.getByTestId('elicitation-problem').textContent()).toMatch(/150/);
			await card.getByLabel('Age').fill('36');
			await card.getByLabel('Tea?').check();
			await card.locator('select').selectOption('green');
			await card.getByTestId('elicitation-submit').click();
			await waitForIdle(page);
			await page.getByTestId('assistant-message').filter({ hasText: '"name":"Ada","age":36,"tea":true,"colour":"green"' }).waitFor();
			expect(await page.getByTestId('elicitation-card').count()).toBe(0);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('Decline answers decline, and the card goes', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'ask again');
			await page.getByTestId('elicitation-card').waitFor();
			await page.getByTestId('elicitation-decline').click();
			await waitForIdle(page);
			await page.getByTestId('assistant-message').filter({ hasText: '{"action":"decline"}' }).waitFor();
			expect(await page.getByTestId('elicitation-card').count()).toBe(0);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});

	it('a URL question shows the URL and its host, and opens it only when the person presses Open', async () => {
		const { context, page, pageErrors } = await openPage(browser, service.url);
		try {
			const popups: string[] = [];
			context.on('page', (p) => popups.push(p.url()));
			await sendMessage(page, 'open the form');
			const card = page.getByTestId('elicitation-card');
			await card.waitFor();
			expect(await card.getByTestId('elicitation-host').textContent()).toBe('127.0.0.1:9');
			expect(await card.getByTestId('elicitation-url').textContent()).toBe('http://127.0.0.1:9/form');
			expect(await card.getByTestId('elicitation-submit').count()).toBe(0);
			expect(popups).toEqual([]);
			const popup = context.waitForEvent('page');
			await card.getByTestId('elicitation-open').click();
			await popup;
			await waitForIdle(page);
			await page.getByTestId('assistant-message').filter({ hasText: '{"action":"accept"}' }).waitFor();
			expect(popups).toHaveLength(1);
			expect(pageErrors).toEqual([]);
		} finally {
			await context.close();
		}
	});
});
