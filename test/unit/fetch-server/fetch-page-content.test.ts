import { describe, expect, it } from 'vitest';
import { htmlToMarkdown, SIMPLIFY_FAILED } from '../../../servers/fetch/page-content.js';

const PAGE_URL = new URL('https://blog.example/posts/durable-agents');

// A page the way sites really ship them: chrome around one article, plus scripts and styles.
const FIXTURE = `<!DOCTYPE html>
<html lang="en">
<head>
	<meta charset="utf-8">
	<title>Durable agents</title>
	<style>body { font-family: serif; }</style>
	<script>window.analytics = "tracking code";</script>
</head>
<body>
	<header><nav><a href="/">Blog home</a> | <a href="/tags">Tags</a> | <a href="/about">About me</a></nav></header>
	<main>
		<article>
			<h1>Durable agents</h1>
			<p class="byline">By Ada, 3 March</p>
			<p>An agent that survives a crash keeps a <a href="../ledger">ledger</a> of every step it has taken,
			so that after a restart it can pick up where it stopped instead of starting again from nothing.
			This post walks through how that ledger is written and read back.</p>
			<h2>Writing the ledger</h2>
			<p>Each step is appended <em>before</em> its side effects happen, and marked done after them.
			A step found half-done on restart is replayed, which is why steps must be idempotent.</p>
			<ol><li>Append the intent.</li><li>Perform the effect.</li><li>Mark it done.</li></ol>
			<pre><code>ledger.append({ step: 3, intent: "fetch" });</code></pre>
			<p><img src="/img/ledger.png" alt="The ledger, drawn"></p>
		</article>
	</main>
	<aside><h3>Related posts</h3><ul><li><a href="/x">Something else entirely</a></li></ul></aside>
	<footer><p>© 2026 Ada. All rights reserved.</p></footer>
	<script>document.write("more tracking");</script>
</body>
</html>`;

describe('htmlToMarkdown', () => {
	const markdown = htmlToMarkdown(FIXTURE, PAGE_URL);

	it('keeps the article as Markdown under its title', () => {
		expect(markdown.startsWith('# Durable agents\n\n')).toBe(true);
		expect(markdown).toContain('## Writing the ledger');
		expect(markdown).toContain('appended _before_ its side effects');
		expect(markdown).toMatch(/^1\.\s+Append the intent\.$/m);
		expect(markdown).toContain('```\nledger.append({ step: 3, intent: "fetch" });\n```');
	});

	it('resolves links and images against the page URL', () => {
		expect(markdown).toContain('[ledger](https://blog.example/ledger)');
		expect(markdown).toContain('![The ledger, drawn](https://blog.example/img/ledger.png)');
	});

	it('drops navigation, footers, scripts and styles', () => {
		for (const noise of ['Blog home', 'All rights reserved', 'tracking', 'font-family']) {
			expect(markdown).not.toContain(noise);
		}
	});

	it('falls back to the whole body when Readability finds no article', () => {
		expect(htmlToMarkdown('<html><body><p>Just <b>one</b> line.</p></body></html>', PAGE_URL)).toContain(
			'Just **one** line.'
		);
	});

	it('copes with fragments that have no <html> or <body>', () => {
		expect(htmlToMarkdown('<p>Hello <a href="/there">there</a>.</p>', PAGE_URL)).toContain(
			'Hello [there](https://blog.example/there).'
		);
		expect(htmlToMarkdown('<html><head><title>T</title></head><h2>Heading</h2><p>Text.</p></html>', PAGE_URL)).toContain(
			'## Heading'
		);
	});

	it('says so, in the official wording, when nothing is left', () => {
		expect(htmlToMarkdown('<html><body><script>only()</script></body></html>', PAGE_URL)).toBe(SIMPLIFY_FAILED);
		expect(htmlToMarkdown('', PAGE_URL)).toBe('<error>Page failed to be simplified from HTML</error>');
	});
});
