import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { newChat, openPage, sendMessage, textsOf, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

describe('conversation list', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		({ ollama, service, browser } = await startBrowserStack(answerScript('Noted.')));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('deletes a conversation only after confirmation', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await sendMessage(page, 'Keep me');
			await waitForIdle(page);
			await newChat(page);
			await sendMessage(page, 'Delete me');
			await waitForIdle(page);
			expect(await textsOf(page, 'conversation-title')).toEqual(['Delete me', 'Keep me']);
			const doomed = page.getByTestId('conversation-item').first();
			const id = await doomed.getAttribute('data-conversation-id');

			await doomed.getByTestId('delete-conversation-button').click();
			const dialog = page.getByTestId('delete-dialog');
			await dialog.waitFor();
			expect(await dialog.textContent()).toContain('Delete me');
			await page.getByTestId('delete-cancel').click();
			await dialog.waitFor({ state: 'hidden' });
			expect(await textsOf(page, 'conversation-title')).toEqual(['Delete me', 'Keep me']);

			await doomed.getByRole('button', { name: 'Delete conversation: Delete me' }).click();
			await page.getByTestId('delete-confirm').click();
			await dialog.waitFor({ state: 'hidden' });
			await page.getByTestId('empty-state').waitFor();
			expect(await textsOf(page, 'conversation-title')).toEqual(['Keep me']);
			expect((await page.request.get(`/api/conversations/${id}`)).status()).toBe(404);
		} finally {
			await context.close();
		}
	});

	it('marks a running conversation, then a failed one', async () => {
		ollama.script = answerScript('Slow answer.', { hold: 'badge', holdAfterChunks: 1 });
		const { context, page } = await openPage(browser, service.url);
		try {
			await newChat(page);
			await sendMessage(page, 'Take your time');
			await ollama.held('badge');
			const item = page.getByTestId('conversation-item').first();
			await item.getByTestId('conversation-status').getByText('Running').waitFor();
			expect(await item.getAttribute('class')).toContain('active');
			expect(await item.getByRole('button', { name: /^Take your time/ }).getAttribute('aria-current')).toBe('page');
			ollama.release('badge');
			await waitForIdle(page);
			expect(await item.getByTestId('conversation-status').count()).toBe(0);
			expect(await item.getByTestId('conversation-count').textContent()).toBe('2 messages');

			ollama.script = () => ({ httpError: { status: 500, error: 'model crashed' } });
			await newChat(page);
			await sendMessage(page, 'This one fails');
			await waitForIdle(page);
			await page.getByTestId('error-banner').waitFor();
			expect(await page.getByTestId('conversation-item').first().getByTestId('conversation-status').textContent()).toBe('Failed');
		} finally {
			await context.close();
		}
	});
});
