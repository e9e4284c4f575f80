// The byte comparisons behind write links (write-links.ts), pure so both engines share them:
// where a pending write's serialised bytes are some of the log items just written, and the bytes
// of a JSON array of items.

const COMMA = Buffer.from(',');
const OPEN = '['.charCodeAt(0);
const CLOSE = ']'.charCodeAt(0);
const SEPARATOR = ','.charCodeAt(0);

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

/** The JSON array of serialised items: what a write linked to several items stands for. */
export function joinItems(parts: readonly Uint8Array[]): Buffer {
	return Buffer.concat([Buffer.from('['), ...parts.flatMap((part, i) => (i === 0 ? [part] : [COMMA, part])), Buffer.from(']')]);
}
