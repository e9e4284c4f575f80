import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { openPage, screenshot, sendMessage, textsOf, waitForIdle, startBrowserStack, stopBrowserStack } from '../support/browser';
import { ScriptedOllama } from '../support/scripted-ollama';
import { SUMMARY, walkthroughScript } from '../support/scripts';
import { Service } from '../support/service';

const PROMPT = 'Summarize example.com in one sentence and save it to your knowledge graph.';
const TOOLS = ['memory__read_graph', 'memory__add_observations', 'memory__create_entities'];

async function cards(page: Page) {
	const all = page.getByTestId('tool-call');
	return {
		names: await all.evaluateAll((els) => els.map((e) => e.getAttribute('data-tool-name'))),
		statuses: await all.evaluateAll((els) => els.map((e) => e.getAttribute('data-status')))
	};
}

describe('tool calls', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;

	beforeAll(async () => {
		// fetch: false: the first tool is a memory read; the second (add_observations) fails.
		({ ollama, service, browser } = await startBrowserStack(walkthroughScript({ url: 'https://example.com', fetch: false }), { env: { OLLAMA_THINK: 'true' } }));
	});
	afterAll(() => stopBrowserStack({ ollama, service, browser }));

	it('shows each call as a card with its arguments and result, and marks the failed one plainly', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await sendMessage(page, PROMPT);
			await waitForIdle(page);
			await page.getByTestId('assistant-message').getByText('I saved it').waitFor();
			expect(await cards(page)).toEqual({ names: TOOLS, statuses: ['success', 'error', 'success'] });

			const failed = page.getByTestId('tool-call').nth(1);
			expect(await failed.getByTestId('tool-error-badge').textContent()).toBe('Error');
			expect(await page.getByTestId('tool-error-badge').count()).toBe(1);
			await failed.locator('summary').click();
			expect(await failed.getByTestId('tool-message').textContent()).toContain('Entity with name example.com not found');
			expect(await failed.getByTestId('tool-args').textContent()).toContain(SUMMARY);
			expect(await failed.getByText('Error returned by the tool').isVisible()).toBe(true);
			await page.getByTestId('thinking-block').locator('summary').click();
			expect(await page.getByTestId('thinking-text').textContent()).toBe('I should look at what I know first.');

			await page.getByTestId('timeline-toggle').click();
			const timeline = page.getByTestId('run-timeline');
			expect(await timeline.locator('[data-event="call"]').count()).toBe(3);
			expect(await timeline.locator('[data-event="result"]').count()).toBe(3);
			expect(await timeline.getByTestId('timeline-error').count()).toBe(1);
			await screenshot(page, 'completed-tools-light');
			await page.emulateMedia({ colorScheme: 'dark' });
			await screenshot(page, 'completed-tools-dark');

			await page.reload();
			await page.getByTestId('assistant-message').getByText('I saved it').waitFor();
			expect(await cards(page)).toEqual({ names: TOOLS, statuses: ['success', 'error', 'success'] });
			expect(await textsOf(page, 'thinking-text')).toEqual(['I should look at what I know first.']);
			expect(await textsOf(page, 'user-message')).toEqual([PROMPT]);
		} finally {
			await context.close();
		}
	});

	it('exports the conversation as Markdown and as JSONL', async () => {
		const { context, page } = await openPage(browser, service.url);
		try {
			await page.getByTestId('export-menu').locator('summary').click();
			const markdown = page.getByTestId('export-link');
			const jsonl = page.getByTestId('export-jsonl-link');
			const id = new URL(page.url()).searchParams.get('c');
			expect(await markdown.getAttribute('href')).toBe(`/api/conversations/${id}/export`);
			expect(await jsonl.getAttribute('href')).toBe(`/api/conversations/${id}/export?format=jsonl`);

			const [download] = await Promise.all([page.waitForEvent('download'), markdown.click()]);
			expect(download.suggestedFilename()).toBe(`${id}.md`);
			const md = await page.request.get(`/api/conversations/${id}/export`);
			expect(md.headers()['content-type']).toContain('text/markdown');
			const text = await md.text();
			expect(text).toContain(`# ${PROMPT.slice(0, 50)}...`);
			expect(text).toContain('memory__add_observations');

			const lines = (await (await page.request.get(`/api/conversations/${id}/export?format=jsonl`)).text()).trim().split('\n');
			expect(JSON.parse(lines.at(-1)!)).toMatchObject({ next: [], message_count: 8 });
		} finally {
			await context.close();
		}
	});
});
