// Internal to the event log: consecutive text events of one kind, merged into one entry.

import { formatSseFrame } from './sse-frame';

/**
 * The work a log has done, counted so tests can prove it linear by counting instead of timing:
 * entries visited by a pass over the log, characters and offsets copied from one place to another.
 */
export type LogWork = { entriesVisited: number; charsCopied: number; offsetsCopied: number };

export const newLogWork = (): LogWork => ({ entriesVisited: 0, charsCopied: 0, offsetsCopied: 0 });

/**
 * End offsets are kept in chunks of this many, so a long stretch never copies them again; only the
 * first chunk grows (by doubling, from 16), so a stretch of a few events stays small.
 */
const OFFSET_CHUNK_BITS = 12;
const OFFSET_CHUNK = 1 << OFFSET_CHUNK_BITS;
const FIRST_OFFSETS = 16;
/** Text is joined into flat blocks of about this many characters: each character is copied once. */
const BLOCK_CHARS = 64 * 1024;

/**
 * Events `firstId`…`lastId` (consecutive ids, all `token` or all `reasoning`) as one text, with the
 * offset where each event's text ends, so a replay can start right after any of them. Appending is
 * O(1) at worst (plus one join of BLOCK_CHARS characters every BLOCK_CHARS characters); memory is the
 * text plus 4 bytes per event.
 */
export class TextStretch {
	private offsets: Uint32Array[] = [new Uint32Array(FIRST_OFFSETS)];
	private count = 0;
	private chars = 0;
	private readonly blocks: string[] = [];
	private open: string[] = [];
	private openChars = 0;

	constructor(
		readonly event: 'token' | 'reasoning',
		readonly firstId: number,
		private readonly work: LogWork
	) {}

	get lastId(): number {
		return this.firstId + this.count - 1;
	}

	/** Appends the text of event `lastId + 1`. */
	append(text: string): void {
		const index = this.count++;
		const chunk = index >>> OFFSET_CHUNK_BITS;
		const at = index & (OFFSET_CHUNK - 1);
		if (chunk === this.offsets.length) this.offsets.push(new Uint32Array(OFFSET_CHUNK));
		else if (chunk === 0 && at === this.offsets[0]!.length) this.growFirstChunk();
		this.chars += text.length;
		this.offsets[chunk]![at] = this.chars;
		this.open.push(text);
		this.openChars += text.length;
		if (this.openChars >= BLOCK_CHARS) {
			this.blocks.push(this.open.join(''));
			this.work.charsCopied += this.openChars;
			this.open = [];
			this.openChars = 0;
		}
	}

	/** One frame holding the text of every event after `id` (the whole stretch if `id` precedes it). */
	frameAfter(id: number): string {
		return formatSseFrame(this.event, this.textFrom(id < this.firstId ? 0 : this.endOf(id)), this.lastId);
	}

	private endOf(id: number): number {
		const index = id - this.firstId;
		return this.offsets[index >>> OFFSET_CHUNK_BITS]![index & (OFFSET_CHUNK - 1)]!;
	}

	private textFrom(start: number): string {
		let block = 0;
		let before = 0;
		while (block < this.blocks.length && before + this.blocks[block]!.length <= start) before += this.blocks[block++]!.length;
		return (this.blocks.slice(block).join('') + this.open.join('')).slice(start - before);
	}

	private growFirstChunk(): void {
		const old = this.offsets[0]!;
		const grown = new Uint32Array(old.length * 2);
		grown.set(old);
		this.work.offsetsCopied += old.length;
		this.offsets[0] = grown;
	}
}
