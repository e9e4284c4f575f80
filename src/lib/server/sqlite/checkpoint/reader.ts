// Reads the channel values of one checkpoint from its ChannelMap.

import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { unpack } from '../../checkpoint/blob.js';
import { fromInline, type ChannelEntry, type ChannelMap } from '../../checkpoint/channel-map.js';
import type { ItemCache } from '../../checkpoint/item-cache.js';
import type { Segment } from '../../checkpoint/segments.js';
import type { CheckpointStore } from './store.js';
import { linkedValueBytes } from './write-links.js';

export class ChannelReader {
	constructor(
		private readonly store: CheckpointStore,
		private readonly cache: ItemCache,
		private readonly serde: SerializerProtocol
	) {}

	async values(threadId: string, ns: string, map: ChannelMap): Promise<Record<string, unknown>> {
		const values: Record<string, unknown> = {};
		const origins = new Map<string, ChannelMap | undefined>();
		for (const [channel, entry] of Object.entries(map)) {
			if ('s' in entry) values[channel] = await this.segments(entry.s);
			else if ('r' in entry) {
				if (!origins.has(entry.r)) origins.set(entry.r, this.store.channelMap(threadId, ns, entry.r));
				const stored = origins.get(entry.r)?.[channel];
				if (stored === undefined || !('v' in stored || 'l' in stored)) {
					throw new Error(`checkpoint store: "${channel}" of checkpoint ${entry.r} (thread ${threadId}) is missing`);
				}
				values[channel] = await this.decode(stored);
			} else values[channel] = await this.decode(entry);
		}
		return values;
	}

	async segments(segments: readonly Segment[]): Promise<unknown[]> {
		let items: unknown[] = [];
		for (const [logId, length] of segments) {
			items = items.concat(await this.cache.prefix(logId, length, (from, to) => this.load(logId, from, to)));
		}
		return items;
	}

	/** A value stored in its row: inline, or linked to log items (json). */
	private decode(entry: Extract<ChannelEntry, { v: unknown } | { l: unknown }>): Promise<unknown> {
		if ('l' in entry) return this.serde.loadsTyped('json', linkedValueBytes(this.store, entry.l));
		return this.serde.loadsTyped(entry.v[0], fromInline(entry.v));
	}

	private async load(logId: number, from: number, to: number): Promise<unknown[]> {
		const rows = this.store.items(logId, from, to);
		if (rows.length !== to - from) throw new Error(`checkpoint store: log ${logId} lacks items ${from}..${to - 1}`);
		return Promise.all(rows.map((row) => this.serde.loadsTyped(row.type, unpack(row.value, row.encoding))));
	}
}
