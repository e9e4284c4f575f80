/**
 * Model output to safe HTML: GFM by marked, then DOMPurify with an allow-list. The only source of
 * HTML on the page (Markdown.svelte is its only caller), because model and tool output are
 * untrusted: a prompt injection can make the model write anything.
 *
 * - Images are never loaded: marked renders them as links ("🖼 alt"), since an auto-loaded image
 *   URL can carry conversation data to a third party.
 * - Only text-formatting tags survive; no style attribute, form, media, frame, svg or script.
 * - Links keep only http(s) and mailto targets and open in a new tab with
 *   rel="noopener noreferrer nofollow"; any other href (javascript:, data:, relative) is dropped.
 * - Classes survive only as `language-*` on code, so output cannot borrow the page's styles.
 * - Without a working DOM (server rendering, tests) `renderMarkdown` returns null and callers
 *   show the raw text: DOMPurify without a DOM would return its input unchanged.
 * - A message past a cap of markdown-limits.ts is not parsed either (null, shown as text), so no
 *   answer can hang the tab.
 */
import createDOMPurify, { type Config, type DOMPurify } from 'dompurify';
import { Marked, type Tokens } from 'marked';
import { markdownOverLimit } from './markdown-limits';

const ALLOWED_TAGS = [
	'a', 'abbr', 'b', 'blockquote', 'br', 'code', 'dd', 'del', 'details', 'div', 'dl', 'dt', 'em',
	'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'i', 'ins', 'kbd', 'li', 'mark', 'ol', 'p', 'pre', 'q',
	's', 'samp', 'small', 'span', 'strong', 'sub', 'summary', 'sup', 'table', 'tbody', 'td', 'tfoot',
	'th', 'thead', 'tr', 'u', 'ul', 'var'
];

const CONFIG: Config = {
	ALLOWED_TAGS,
	ALLOWED_ATTR: ['href', 'title', 'class', 'colspan', 'rowspan', 'align', 'start', 'reversed', 'open', 'lang', 'dir'],
	ALLOWED_URI_REGEXP: /^(?:https?:|mailto:)/i,
	ALLOW_DATA_ATTR: false,
	ALLOW_ARIA_ATTR: false,
	FORBID_ATTR: ['style'],
	FORBID_TAGS: ['style', 'img', 'form', 'input', 'button', 'textarea', 'select']
};

const LINK_REL = 'noopener noreferrer nofollow';
const CODE_CLASS = /^language-[\w+#.-]{1,40}$/;

function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const marked = new Marked({
	gfm: true,
	breaks: true,
	async: false,
	renderer: {
		image({ href, title, text }: Tokens.Image) {
			const label = `🖼 ${text || href}`;
			const titleAttr = title ? ` title="${escapeHtml(title)}"` : '';
			return `<a href="${escapeHtml(href)}"${titleAttr}>${escapeHtml(label)}</a>`;
		},
		checkbox({ checked }: Tokens.Checkbox) {
			return checked ? '☑ ' : '☐ ';
		}
	}
});

/** Markdown to unsanitised HTML; exported for tests of the image and task-list rules. */
export function markdownToHtml(text: string): string {
	try {
		return marked.parse(text, { async: false });
	} catch {
		// marked tolerates incomplete Markdown; this is for anything else, such as a stack overflow.
		return `<p>${escapeHtml(text)}</p>`;
	}
}

function createPurifier(win: Window & typeof globalThis): DOMPurify | null {
	const purifier = createDOMPurify(win);
	if (!purifier.isSupported) return null;
	purifier.addHook('uponSanitizeAttribute', (node, data) => {
		if (data.attrName !== 'class') return;
		const kept = data.attrValue.split(/\s+/).filter((c) => node.nodeName === 'CODE' && CODE_CLASS.test(c));
		data.attrValue = kept.join(' ');
		data.keepAttr = kept.length > 0;
	});
	purifier.addHook('afterSanitizeAttributes', (node) => {
		if (node.nodeName !== 'A') return;
		if (node.hasAttribute('href')) {
			node.setAttribute('target', '_blank');
			node.setAttribute('rel', LINK_REL);
		}
	});
	return purifier;
}

let purifier: DOMPurify | null | undefined;
const cache = new Map<string, string>();
const CACHE_ENTRIES = 200;

/** Sanitised HTML for `text`, or null when no DOM is available or `text` is past a cap (show the text instead). */
export function renderMarkdown(text: string): string | null {
	if (purifier === undefined) purifier = typeof window === 'undefined' ? null : createPurifier(window);
	if (!purifier || markdownOverLimit(text) !== null) return null;
	// A small LRU: finished messages are asked for again on every update of the page.
	const hit = cache.get(text);
	if (hit !== undefined) {
		cache.delete(text);
		cache.set(text, hit);
		return hit;
	}
	const html = purifier.sanitize(markdownToHtml(text), { ...CONFIG, RETURN_TRUSTED_TYPE: false }) as string;
	if (cache.size >= CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
	cache.set(text, html);
	return html;
}
