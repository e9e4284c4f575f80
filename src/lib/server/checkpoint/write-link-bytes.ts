// The byte comparisons behind write links (write-links.ts): where
// a pending write's or an inline value's serialised bytes hold some of the log items just written,
// and the bytes of items joined by commas.

const COMMA = Buffer.from(',');
const OPEN = '['.charCodeAt(0);
const CLOSE = ']'.charCodeAt(0);
const SEPARATOR = ','.charCodeAt(0);

/** Items joined by commas, as in a JSON array. */
export const joined = (parts: Buffer[]) => parts.flatMap((part, i) => (i === 0 ? [part] : [COMMA, part]));

/**
 * The first place where `bytes` holds items[start..start+count-1] joined by commas, as the longest
 * such run from there: where it starts (`offset`) and ends in `bytes`.
 */
export function findSpan(bytes: Buffer, items: readonly Uint8Array[]) {
	for (let start = 0; start < items.length; start += 1) {
		const offset = bytes.indexOf(items[start]!);
		if (offset < 0) continue;
		let end = offset + items[start]!.byteLength;
		let count = 1;
		for (let i = start + 1; i < items.length; i += 1) {
			const item = items[i]!;
			if (bytes[end] !== SEPARATOR || !bytes.subarray(end + 1, end + 1 + item.byteLength).equals(item)) break;
			end += 1 + item.byteLength;
			count += 1;
		}
		return { start, count, offset, end };
	}
	return undefined;
}

/** Where `bytes` is one of `items`, or `[` items[start..start+count-1] joined by `,` `]`. */
export function matchItems(
	bytes: Buffer,
	items: readonly Uint8Array[]
): { start: number; count: number; array: boolean } | undefined {
	for (let start = 0; start < items.length; start += 1) {
		if (bytes.equals(items[start]!)) return { start, count: 1, array: false };
	}
	if (bytes.length < 3 || bytes[0] !== OPEN || bytes[bytes.length - 1] !== CLOSE) return undefined;
	for (let start = 0; start < items.length; start += 1) {
		let offset = 1;
		for (let i = start; i < items.length; i += 1) {
			const item = items[i]!;
			if (!bytes.subarray(offset, offset + item.byteLength).equals(item)) break;
			offset += item.byteLength;
			if (offset === bytes.length - 1) return { start, count: i - start + 1, array: true };
			if (bytes[offset] !== SEPARATOR) break;
			offset += 1;
		}
	}
	return undefined;
}
