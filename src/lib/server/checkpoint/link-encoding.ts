// How a pending write, or a run of log items, is stored as a link to the log items that hold its
// bytes (why: write-links.ts). Both engines store and read links alike.

/** Write encodings beyond blob.ts: the value is the JSON of a link. */
export const LINK = {
	/** `[logId, seq]`: the write is that item. */
	ITEM: 10,
	/** `[logId, seq, count]`: the write is the JSON array of those items. */
	ITEMS: 11
} as const;

export type Link = [logId: number, seq: number, count?: number];

export function isLink(encoding: number): boolean {
	return encoding === LINK.ITEM || encoding === LINK.ITEMS;
}

/** Where a link points: log items seq .. seq + count - 1. */
export function linkTarget(write: { value: Buffer; encoding: number }): { logId: number; seq: number; count: number } {
	const [logId, seq, count = 1] = JSON.parse(write.value.toString('utf8')) as Link;
	return { logId, seq, count };
}
