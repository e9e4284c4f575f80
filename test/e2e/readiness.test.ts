import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, screenshot, sendMessage, waitForIdle } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { ROOT, Service, tempDir } from '../support/service';

/** A loopback address where nothing listens: the port was free a moment ago and is closed again. */
async function deadAddress(): Promise<string> {
	const server = net.createServer();
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as net.AddressInfo;
	await new Promise<void>((resolve) => server.close(() => resolve()));
	return `http://127.0.0.1:${port}`;
}

describe('readiness banner', () => {
	let browser: Browser;
	beforeAll(async () => {
		browser = await launchBrowser();
	});
	afterAll(async () => {
		await browser?.close();
	});

	it('says the model is down and how to start it; a message then fails with its code', async () => {
		const ollamaUrl = await deadAddress();
		const service = await Service.start({ ollamaUrl });
		const { context, page } = await openPage(browser, service.url);
		try {
			const banner = page.getByTestId('readiness-banner');
			await banner.waitFor();
			const model = banner.locator('[data-check="model"]');
			const text = await model.textContent();
			expect(text).toContain(`Ollama is not reachable at ${ollamaUrl}`);
			expect(text).toContain('ollama serve');
			expect(text).toContain('ollama pull');
			expect(await banner.locator('code').first().textContent()).toBe('ollama serve');
			await screenshot(page, 'readiness-banner-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'readiness-banner-dark');
			await page.emulateMedia({ colorScheme: 'light' });

			await sendMessage(page, 'Hello?');
			await waitForIdle(page);
			const error = page.getByTestId('error-banner');
			await error.waitFor();
			expect(await error.getAttribute('aria-label')).toBe('Error: MODEL_UNREACHABLE');
			expect(await page.getByTestId('error-message').textContent()).toContain(ollamaUrl);
			expect(await page.getByTestId('conversation-item').getByTestId('conversation-status').textContent()).toBe('Failed');
			await screenshot(page, 'error-banner-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'error-banner-dark');

			// The stored failure is shown again after a reload.
			await page.reload();
			await page.getByTestId('error-banner').waitFor();
			expect(await page.getByTestId('error-banner').getAttribute('aria-label')).toBe('Error: MODEL_UNREACHABLE');
		} finally {
			await context.close();
			await service.stop();
		}
	});

	it('names a tool server that is down, and a run says it goes on without its tools', async () => {
		const ollama = await ScriptedOllama.start(answerScript('ok'));
		const configDir = tempDir('sophos-config-');
		const base = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/mcp.json'), 'utf8'));
		fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ ...base, broken: { command: 'node', args: ['-e', 'process.exit(3)'] } }));
		fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(configDir, 'system.md'));
		const service = await Service.start({ ollamaUrl: ollama.url, configDir });
		const { context, page } = await openPage(browser, service.url);
		try {
			const banner = page.getByTestId('readiness-banner');
			await banner.waitFor();
			expect(await banner.getAttribute('aria-label')).toBe('Some tools are unavailable');
			expect(await banner.getByTestId('readiness-item').evaluateAll((els) => els.map((e) => e.getAttribute('data-check')))).toEqual(['mcp:broken']);
			expect(await banner.textContent()).toContain('Tool server "broken" is down');

			await sendMessage(page, 'Hi');
			await waitForIdle(page);
			expect(await page.getByTestId('warning-banner').textContent()).toContain('Running without the tools of: broken');
			expect((await page.getByTestId('assistant-message').textContent())?.trim()).toBe('ok');
		} finally {
			await context.close();
			await service.stop();
			await ollama.close();
		}
	});
});
