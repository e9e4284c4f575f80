// The official server's paging of long content, with its wording, so a model that knows that
// server pages through this one the same way. Indexes count Unicode code points (as Python's do),
// which also keeps a page from splitting a surrogate pair.

export const NO_MORE_CONTENT = '<error>No more content available.</error>';

export function paginate(content: string, startIndex: number, maxLength: number): string {
	const from = codeUnitOffset(content, startIndex, 0);
	if (from >= content.length) return NO_MORE_CONTENT;
	const to = codeUnitOffset(content, maxLength, from);
	const page = content.slice(from, to);
	if (to >= content.length) return page;
	return (
		`${page}\n\n<error>Content truncated. Call the fetch tool with a start_index of ` +
		`${startIndex + maxLength} to get more content.</error>`
	);
}

/** The UTF-16 offset reached by walking `codePoints` code points from `offset`. */
function codeUnitOffset(text: string, codePoints: number, offset: number): number {
	let index = offset;
	for (let walked = 0; walked < codePoints && index < text.length; walked++) {
		const unit = text.charCodeAt(index);
		const isPair = unit >= 0xd800 && unit <= 0xdbff && index + 1 < text.length;
		index += isPair ? 2 : 1;
	}
	return index;
}
