import { describe, expect, it } from 'vitest';
import { NO_MORE_CONTENT, paginate } from '../../../servers/fetch/pagination.js';

const note = (next: number) =>
	`\n\n<error>Content truncated. Call the fetch tool with a start_index of ${next} to get more content.</error>`;

describe('paginate (the official server\'s arithmetic)', () => {
	const text = 'abcdefghij';

	it('returns short content whole, with no note', () => {
		expect(paginate(text, 0, 5000)).toBe(text);
		expect(paginate(text, 0, 10)).toBe(text);
	});

	it('cuts at max_length and names the next start_index', () => {
		expect(paginate(text, 0, 4)).toBe(`abcd${note(4)}`);
		expect(paginate(text, 4, 4)).toBe(`efgh${note(8)}`);
		expect(paginate(text, 8, 4)).toBe('ij');
	});

	it('adds no note when the page ends exactly at the end', () => {
		expect(paginate(text, 6, 4)).toBe('ghij');
	});

	it('says there is no more content at or past the end', () => {
		expect(paginate(text, 10, 5)).toBe(NO_MORE_CONTENT);
		expect(paginate(text, 999, 5)).toBe(NO_MORE_CONTENT);
		expect(paginate('', 0, 5)).toBe(NO_MORE_CONTENT);
		expect(NO_MORE_CONTENT).toBe('<error>No more content available.</error>');
	});

	it('pages that follow the notes add up to the whole content', () => {
		const long = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
		let joined = '';
		for (let start = 0; ; ) {
			const page = paginate(long, start, 97);
			const cut = /\n\n<error>Content truncated\. Call the fetch tool with a start_index of (\d+) /.exec(page);
			joined += cut ? page.slice(0, cut.index) : page;
			if (!cut) break;
			start = Number(cut[1]);
		}
		expect(joined).toBe(long);
	});

	it('counts code points, so a page never splits an emoji', () => {
		const emoji = '😀😁😂🤣😃';
		expect(paginate(emoji, 0, 2)).toBe(`😀😁${note(2)}`);
		expect(paginate(emoji, 2, 2)).toBe(`😂🤣${note(4)}`);
		expect(paginate(emoji, 4, 2)).toBe('😃');
		expect(paginate(emoji, 5, 2)).toBe(NO_MORE_CONTENT);
	});
});
