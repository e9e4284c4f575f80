// Retention's decisions, pure so the SQLite store (retention.ts) and the PostgreSQL engine
// (postgres/checkpoint/history.ts) prune alike: which checkpoints of a namespace stay, how the kept
// ones change so each still reads whole, and how far each item log is still reached.

import type { ChannelEntry, ChannelMap } from './channel-map.js';

/** A stored checkpoint of one namespace, as retention reads it. */
export interface PruneCandidate {
	id: string;
	/** Its parent's id (null: a root). */
	parent: string | null;
	map: ChannelMap;
}

/** A kept checkpoint whose row must change before the dropped ones go. */
export interface KeptChange {
	id: string;
	/** Its new channel map, when values it referenced in a dropped row move into it or elsewhere. */
	map?: ChannelMap;
	/** Its parent is dropped: it becomes a root. */
	detach: boolean;
}

export interface PrunePlan {
	dropped: string[];
	/** In the order to apply (oldest kept first). */
	changes: KeptChange[];
	/** Writes of older ids that are stored only as a parent (or by their writes) go too. */
	oldestKept: string;
}

/**
 * Keep the newest `keepLast` checkpoints of `rows` (newest first); with `heads`, the newest
 * `keepLast` of every branch instead: of the chain that ends at each tip (a checkpoint no other
 * follows) and at each of `heads`. Values that kept checkpoints reference in a dropped row move
 * into the oldest kept checkpoint that uses them, and the later ones reference it. Undefined when
 * nothing is dropped.
 */
export function planPrune(rows: readonly PruneCandidate[], keepLast: number, heads?: readonly string[]): PrunePlan | undefined {
	if (rows.length <= keepLast) return undefined;
	const keep = heads ? branchTails(rows, keepLast, heads) : new Set(rows.slice(0, keepLast).map((row) => row.id));
	const kept = rows.filter((row) => keep.has(row.id)).reverse(); // oldest first: it receives relocated values
	const dropped = new Map(rows.filter((row) => !keep.has(row.id)).map((row) => [row.id, row]));
	if (dropped.size === 0) return undefined;
	const holders = new Map<string, string>(); // `${origin}\n${channel}` → kept checkpoint now storing it
	const changes: KeptChange[] = [];
	for (const row of kept) {
		const map = structuredClone(row.map);
		let moved = false;
		for (const [channel, entry] of Object.entries(map)) {
			if (!('r' in entry) || !dropped.has(entry.r)) continue;
			const key = `${entry.r}\n${channel}`;
			const holder = holders.get(key);
			map[channel] = holder === undefined ? storedEntry(dropped.get(entry.r)!, channel) : { r: holder };
			if (holder === undefined) holders.set(key, row.id);
			moved = true;
		}
		const detach = row.parent !== null && dropped.has(row.parent);
		if (moved || detach) changes.push({ id: row.id, map: moved ? map : undefined, detach });
	}
	return { dropped: [...dropped.keys()], changes, oldestKept: kept[0]!.id };
}

/** The newest `keepLast` checkpoints of the chain ending at each tip and at each of `heads`. */
function branchTails(rows: readonly PruneCandidate[], keepLast: number, heads: readonly string[]): Set<string> {
	const parents = new Map(rows.map((row) => [row.id, row.parent]));
	const followed = new Set(rows.flatMap((row) => (row.parent === null ? [] : [row.parent])));
	const ends = [...rows.filter((row) => !followed.has(row.id)).map((row) => row.id), ...heads];
	const keep = new Set<string>();
	for (const end of ends) {
		let at: string | null | undefined = end;
		for (let n = 0; n < keepLast && at != null && parents.has(at); n++, at = parents.get(at)) keep.add(at);
	}
	return keep;
}

function storedEntry(origin: PruneCandidate, channel: string): ChannelEntry {
	const entry = origin.map[channel];
	if (entry === undefined || !('v' in entry || 'l' in entry)) {
		throw new Error(`checkpoint store: "${channel}" of checkpoint ${origin.id} is missing`);
	}
	return entry;
}

/**
 * How many leading items of each log the remaining checkpoints' maps and pending-write links
 * (write-links.ts) reach: items past that, and logs not reached at all, can go.
 */
export function logReach(
	maps: Iterable<ChannelMap>,
	links: Iterable<{ logId: number; seq: number; count: number }>
): Map<number, number> {
	const reach = new Map<number, number>();
	const reaches = (logId: number, length: number) => reach.set(logId, Math.max(reach.get(logId) ?? 0, length));
	for (const map of maps) {
		for (const entry of Object.values(map)) {
			if ('s' in entry) for (const [logId, length] of entry.s) reaches(logId, length);
			if ('l' in entry) reaches(entry.l[0], entry.l[1] + entry.l[2]);
		}
	}
	for (const { logId, seq, count } of links) reaches(logId, seq + count);
	return reach;
}

/** CHECKPOINT_RETENTION: `all` keeps every checkpoint; `latest:<N>` keeps the newest N per namespace. */
export type CheckpointRetention = { kind: 'all' } | { kind: 'latest'; keep: number };

export function parseCheckpointRetention(setting: string | undefined): CheckpointRetention {
	const value = (setting ?? '').trim();
	if (value === '' || value === 'all') return { kind: 'all' };
	const match = /^latest:(\d+)$/.exec(value);
	const keep = match ? Number(match[1]) : NaN;
	if (!Number.isSafeInteger(keep) || keep < 1) {
		throw new Error(`CHECKPOINT_RETENTION must be "all" or "latest:<N>" with N >= 1, got "${setting}"`);
	}
	return { kind: 'latest', keep };
}
