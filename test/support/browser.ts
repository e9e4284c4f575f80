import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ROOT, Service, type ServiceOptions } from './service';
import { ScriptedOllama, type Script } from './scripted-ollama';

/** Debian's Chromium, never a downloaded one; flags that keep it off the network and quiet. */
export const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
	'--no-sandbox',
	'--disable-gpu',
	'--disable-quic',
	'--no-first-run',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync'
];

export const SCREENSHOTS = path.join(ROOT, 'test-results', 'ui');

/** `extraArgs`, e.g. `--host-resolver-rules=MAP evil.example 127.0.0.1` to point a name at loopback. */
export function launchBrowser(extraArgs: string[] = []): Promise<Browser> {
	return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...ARGS, ...extraArgs] });
}

/** A page with everything it does recorded: requests, dialogs, uncaught errors, console errors. */
export type WatchedPage = {
	context: BrowserContext;
	page: Page;
	requests: string[];
	dialogs: string[];
	pageErrors: string[];
	consoleErrors: string[];
};

export type PageOptions = {
	path?: string;
	width?: number;
	height?: number;
	colorScheme?: 'light' | 'dark';
};

export async function openPage(browser: Browser, baseUrl: string, options: PageOptions = {}): Promise<WatchedPage> {
	const context = await browser.newContext({
		viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
		colorScheme: options.colorScheme ?? 'light',
		baseURL: baseUrl
	});
	const page = await context.newPage();
	const watched: WatchedPage = { context, page, requests: [], dialogs: [], pageErrors: [], consoleErrors: [] };
	watchPage(watched, page);
	await page.goto(options.path ?? '/');
	await waitForStart(page);
	return watched;
}

/** Waits until the page has loaded its list and opened the conversation it opens at start. */
export async function waitForStart(page: Page): Promise<void> {
	await page.locator('[data-testid="app"][data-started="true"]').waitFor({ state: 'attached' });
}

/** Records what `page` does into `watched` (also for a second tab of the same context). */
export function watchPage(watched: Omit<WatchedPage, 'page' | 'context'>, page: Page): void {
	page.on('request', (r) => watched.requests.push(r.url()));
	page.on('dialog', (d) => {
		watched.dialogs.push(`${d.type()}: ${d.message()}`);
		void d.dismiss();
	});
	page.on('pageerror', (e) => watched.pageErrors.push(String(e)));
	page.on('console', (m) => m.type() === 'error' && watched.consoleErrors.push(m.text()));
}

export async function screenshot(page: Page, name: string): Promise<string> {
	fs.mkdirSync(SCREENSHOTS, { recursive: true });
	const file = path.join(SCREENSHOTS, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/** Waits until the element's text is exactly `text` (observable state; the page polls, no sleep). */
export async function waitForExactText(page: Page, testId: string, text: string, index = 0): Promise<void> {
	await page.waitForFunction(
		([id, expected, i]) => document.querySelectorAll(`[data-testid="${id}"]`)[i]?.textContent?.trim() === expected,
		[testId, text, index] as const
	);
}

/** The trimmed text of every element with this test id, in order. */
export function textsOf(page: Page, testId: string): Promise<string[]> {
	return page.getByTestId(testId).evaluateAll((els) => els.map((e) => (e.textContent ?? '').trim()));
}

/** Sends a message the way a person does (type it, press Enter) and waits until the page shows it. */
export async function sendMessage(page: Page, text: string): Promise<void> {
	const input = page.getByTestId('chat-input');
	await input.fill(text);
	await input.press('Enter');
	await page.waitForFunction(
		(sent) => [...document.querySelectorAll('[data-testid="user-message"]')].at(-1)?.textContent === sent,
		text.trim()
	);
}

/** Starts a new chat and waits until the page shows the empty conversation. */
export async function newChat(page: Page): Promise<void> {
	await page.getByTestId('new-chat-button').click();
	await page.getByTestId('empty-state').waitFor();
}

/** Waits until no run is followed and the finished run's durable transcript is on screen. */
export async function waitForIdle(page: Page): Promise<void> {
	await page.locator('[data-testid="app"][data-status="idle"][data-syncing="false"]').waitFor({ state: 'attached' });
}

/** What most browser tests start: a scripted model, the service on it, and a browser. */
export type BrowserStack = { ollama: ScriptedOllama; service: Service; browser: Browser };

export async function startBrowserStack(script: Script, options: Omit<ServiceOptions, 'ollamaUrl'> = {}): Promise<BrowserStack> {
	const ollama = await ScriptedOllama.start(script);
	const service = await Service.start({ ollamaUrl: ollama.url, ...options });
	return { ollama, service, browser: await launchBrowser() };
}

export async function stopBrowserStack(stack: Partial<BrowserStack>): Promise<void> {
	await stack.browser?.close();
	await stack.service?.stop();
	await stack.ollama?.close();
}
