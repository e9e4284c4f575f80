import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openPage, sendMessage, textsOf, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

describe('conversation bundle on the page', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript('Noted.')));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('exports a conversation as a bundle, imports the file beside Export and shows the copy; a bad file is refused with the reason', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Carry me over');
			await waitForIdle(page);
			const original = new URL(page.url()).searchParams.get('c');
			await page.getByTestId('export-menu').click();
			const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('export-bundle-link').click()]);
			expect(download.suggestedFilename()).toBe(`${original}.sophos.json`);
			const file = await download.path();

			await page.getByTestId('import-file').setInputFiles(file);
			await page.waitForURL((url) => url.searchParams.get('c') !== original);
			const copy = new URL(page.url()).searchParams.get('c');
			expect(copy).toMatch(/^[0-9a-f-]{36}$/);
			expect(await textsOf(page, 'conversation-title')).toEqual(['Carry me over', 'Carry me over']);
			await page.getByTestId('current-title').getByText('Carry me over').waitFor();
			await page.getByText('Noted.').waitFor();

			await page.getByTestId('import-file').setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"format": "sophos-conversation", "formatVersion": 9}') });
			const error = page.getByTestId('import-error');
			await error.waitFor();
			expect(await error.textContent()).toContain('format version 9 is newer than this Sophos reads (1)');
			expect(new URL(page.url()).searchParams.get('c')).toBe(copy);
			expect(await textsOf(page, 'conversation-title')).toHaveLength(2);
		} finally {
			await context.close();
		}
	});
});
