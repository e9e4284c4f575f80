import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import {
	newChat,
	openPage,
	sendMessage,
	textsOf,
	waitForExactText,
	waitForIdle,
	waitForStart,
	startBrowserStack,
	stopBrowserStack,
	type BrowserStack
} from '../support/browser';
import { LIST_PAGE } from '../../src/lib/client/chat-controller';
import { openDatabase } from '../../src/lib/server/sqlite/database';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service, tempDir } from '../support/service';

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

describe('a long conversation list', () => {
	const SEEDED = LIST_PAGE + 20;
	let stack: BrowserStack;

	beforeAll(async () => {
		// Rows written before the start, as an older install would have them; oldest is "Seeded 0".
		const dataDir = tempDir();
		const db = openDatabase(path.join(dataDir, 'sophos.db'));
		const insert = db.prepare('INSERT INTO conversations (id, title, created_at, updated_at) VALUES (?, ?, ?, ?)');
		db.transaction(() => {
			for (let i = 0; i < SEEDED; i++) {
				const at = new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString();
				insert.run(randomUUID(), `Seeded ${i}`, at, at);
			}
		})();
		db.close();
		stack = await startBrowserStack(answerScript('Noted.'), { dataDir });
	});
	afterAll(() => stopBrowserStack(stack));

	it('shows a page of the newest, then older ones on "Show older conversations"', async () => {
		const { context, page } = await openPage(stack.browser, stack.service.url);
		try {
			const more = page.getByTestId('show-more-conversations');
			await more.waitFor();
			const firstPage = await textsOf(page, 'conversation-title');
			expect(firstPage).toHaveLength(LIST_PAGE);
			expect(firstPage[0]).toBe(`Seeded ${SEEDED - 1}`);
			expect(firstPage.at(-1)).toBe(`Seeded ${SEEDED - LIST_PAGE}`);

			await more.click();
			await more.waitFor({ state: 'detached' });
			const all = await textsOf(page, 'conversation-title');
			expect(all).toEqual(Array.from({ length: SEEDED }, (_, i) => `Seeded ${SEEDED - 1 - i}`));

			// The oldest opens like any other, and a reload with it in the URL comes back to it, although
			// it is no longer on the first page.
			const oldest = page.getByTestId('conversation-item').last();
			const id = await oldest.getAttribute('data-conversation-id');
			await oldest.getByRole('button', { name: /^Seeded 0/ }).click();
			await waitForExactText(page, 'current-title', 'Seeded 0');
			await page.waitForURL(`**/?c=${id}`);
			await page.reload();
			await waitForStart(page);
			await waitForExactText(page, 'current-title', 'Seeded 0');
			expect(await textsOf(page, 'conversation-title')).toHaveLength(LIST_PAGE);
		} finally {
			await context.close();
		}
	});
});
