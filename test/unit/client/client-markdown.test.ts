import { describe, expect, it } from 'vitest';
import { markdownToHtml, renderMarkdown } from '../../../src/lib/client/markdown';

// Sanitising needs a real DOM: the browser tests (test/e2e/xss.test.ts) cover it with Chromium.
describe('markdown', () => {
	it('renders an image as a link, never as <img>', () => {
		const html = markdownToHtml('![chart](https://203.0.113.7/x.png "t")');
		expect(html).not.toContain('<img');
		expect(html).toContain('<a href="https://203.0.113.7/x.png" title="t">🖼 chart</a>');
	});

	it('escapes what it puts into the image link', () => {
		const html = markdownToHtml('![a"><script>x</script>](https://e.test/x.png)');
		expect(html).not.toContain('<script>');
	});

	it('renders task lists without form inputs', () => {
		const html = markdownToHtml('- [x] done\n- [ ] todo');
		expect(html).not.toContain('<input');
		expect(html).toContain('☑');
		expect(html).toContain('☐');
	});

	it('renders GFM with single newlines as breaks, and tolerates incomplete Markdown', () => {
		expect(markdownToHtml('one\ntwo')).toContain('one<br>two');
		expect(markdownToHtml('| a | b |\n|---|---|\n| 1 | 2 |')).toContain('<table>');
		expect(() => markdownToHtml('```ts\nconst x = ')).not.toThrow();
		expect(markdownToHtml('```ts\nconst x = 1\n```')).toContain('class="language-ts"');
	});

	it('refuses to render without a DOM, so callers show plain text', () => {
		expect(renderMarkdown('<img src=x onerror=alert(1)>')).toBeNull();
	});
});
