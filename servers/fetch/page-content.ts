// HTML to Markdown: Readability picks the main content (dropping menus, ads and footers), then
// Turndown writes it as Markdown. linkedom stands in for a browser DOM at a fraction of jsdom's cost.
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import TurndownService from 'turndown';

export const SIMPLIFY_FAILED = '<error>Page failed to be simplified from HTML</error>';

const turndown = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
turndown.remove(['script', 'style', 'noscript', 'template', 'iframe']);

export function htmlToMarkdown(html: string, pageUrl: URL): string {
	const document = parseDocument(html);
	absolutizeLinks(document, pageUrl);
	// Readability edits the tree it reads, so the fallback works on the HTML taken beforehand.
	const bodyHtml: string = document.body?.innerHTML ?? '';
	let article: { title?: string | null; content?: string | null } | null = null;
	try {
		article = new Readability(document as unknown as Document).parse();
	} catch {
		// Some malformed pages make Readability throw; the whole body still says something.
	}
	const main = article?.content ? turndown.turndown(article.content).trim() : '';
	if (!main) return turndown.turndown(bodyHtml).trim() || SIMPLIFY_FAILED;
	const title = article?.title?.trim();
	return title ? `# ${title}\n\n${main}` : main;
}

// linkedom does not build the implied <html><body> of a fragment the way a browser does, and
// Readability needs a body to search, so one is supplied when the markup has none.
function parseDocument(html: string) {
	if (/<body[\s>]/i.test(html)) return parseHTML(html).document;
	const head = /<head[\s>][\s\S]*?<\/head>/i.exec(html)?.[0] ?? '';
	const rest = html.replace(head, '').replace(/<!doctype[^>]*>|<\/?html[^>]*>/gi, '');
	return parseHTML(`<!doctype html><html>${head}<body>${rest}</body></html>`).document;
}

// The model can only follow links it can resolve; linkedom has no base URL to do it for Readability.
function absolutizeLinks(document: ReturnType<typeof parseHTML>['document'], pageUrl: URL): void {
	for (const [selector, attribute] of [
		['a[href]', 'href'],
		['img[src]', 'src']
	] as const) {
		for (const element of document.querySelectorAll(selector)) {
			const value = element.getAttribute(attribute);
			if (value === null) continue;
			try {
				element.setAttribute(attribute, new URL(value, pageUrl).href);
			} catch {
				// Leave an unparseable link as the page wrote it.
			}
		}
	}
}
