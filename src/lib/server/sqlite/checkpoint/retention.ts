// Retention: drop old checkpoints of finished threads so a long conversation does not keep every
// intermediate step forever. The runtime decides which threads are safe to prune (finished runs
// only); this module is the mechanism.

import type Database from 'better-sqlite3';
import type { PruneResult } from '../../storage/checkpoint-history';
import { logReach, planPrune } from '../../checkpoint/retention-plan.js';
import { channelMapOf } from '../../checkpoint/row-encoding.js';
import { CheckpointStore, type CheckpointRow } from './store.js';
import { LINK, linkTarget } from '../../checkpoint/link-encoding.js';
import { packUuid, unpackUuid } from '../../checkpoint/packed-uuid.js';

/** Ids as stored: packed (checkpoint/packed-uuid.ts). */
type Row = Pick<CheckpointRow, 'channels' | 'encoding'> & { checkpoint_id: string | Buffer; parent_checkpoint_id: string | Buffer | null };

/**
 * Keep the newest `keepLast` checkpoints of each namespace of a thread (never fewer than one, so
 * the latest always survives) and delete the older ones with their pending writes, in one
 * transaction. With `branches`, every branch keeps its own newest `keepLast` instead, so no branch
 * is pruned away: a branch is the chain that ends at a tip (a checkpoint no other follows) or at one
 * of `branches.heads` (where a reader's branch ends before its next step is written); a thread that
 * never forked is one branch, so the result is the same for it. Without, branches that are not the
 * newest lose their checkpoints (an abandoned branch).
 * Values that kept checkpoints referenced in a deleted row are moved into the oldest kept checkpoint
 * that uses them, and a kept checkpoint whose parent is deleted becomes a root, so every kept
 * checkpoint still reads whole. Log items no kept checkpoint reaches are deleted.
 *
 * Space is returned to SQLite's free list and reused by later writes; shrinking the file is left
 * to the caller (VACUUM, or `PRAGMA incremental_vacuum` on a database with auto_vacuum=INCREMENTAL).
 */
export function pruneThreadCheckpoints(
	db: Database.Database,
	threadId: string,
	keepLast: number,
	branches?: { heads: readonly string[] }
): PruneResult {
	if (!Number.isSafeInteger(keepLast) || keepLast < 1) throw new RangeError(`keepLast must be >= 1, got ${keepLast}`);
	const store = new CheckpointStore(db);
	return db.transaction(() => {
		const result: PruneResult = { deletedCheckpoints: 0, deletedWrites: 0, deletedItems: 0 };
		const namespaces = db.prepare(`SELECT id, checkpoint_ns FROM lg_threads WHERE thread_id = ?`).all(threadId) as {
			id: number;
			checkpoint_ns: string;
		}[];
		for (const ns of namespaces) pruneNamespace(db, store, threadId, ns, keepLast, branches, result);
		if (result.deletedCheckpoints > 0) result.deletedItems = collectLogs(db, threadId);
		return result;
	})();
}

function pruneNamespace(
	db: Database.Database,
	store: CheckpointStore,
	threadId: string,
	{ id: thread, checkpoint_ns: ns }: { id: number; checkpoint_ns: string },
	keepLast: number,
	branches: { heads: readonly string[] } | undefined,
	result: PruneResult
): void {
	const rows = db
		.prepare(
			`SELECT c.checkpoint_id, p.checkpoint_id AS parent_checkpoint_id, c.channels, c.encoding
			 FROM lg_checkpoints c LEFT JOIN lg_checkpoints p ON p.id = c.parent
			 WHERE c.thread = ? AND c.type IS NOT NULL ORDER BY c.checkpoint_id DESC`
		)
		.all(thread) as Row[];
	const ids = rows.map((row) => unpackUuid(row.checkpoint_id));
	const encodings = new Map(rows.map((row, i) => [ids[i]!, row.encoding]));
	const candidates = rows.map((row, i) => ({
		id: ids[i]!,
		parent: row.parent_checkpoint_id === null ? null : unpackUuid(row.parent_checkpoint_id),
		map: channelMapOf(row)
	}));
	const plan = planPrune(candidates, keepLast, branches?.heads);
	if (plan === undefined) return;
	for (const change of plan.changes) {
		if (change.map) store.updateChannels(threadId, ns, change.id, change.map, encodings.get(change.id)!);
		if (change.detach) store.detachParent(threadId, ns, change.id);
	}

	// Branches keep different ranges of ids, so the dropped checkpoints go one by one, with their
	// writes; then, as for a thread of one branch, the writes of older ids known only as a parent (or
	// by their writes), and those ids unless a kept checkpoint still names one as its parent.
	const keyOf = db.prepare(`SELECT id FROM lg_checkpoints WHERE thread = ? AND checkpoint_id = ?`).pluck();
	const deleteWrites = db.prepare(`DELETE FROM lg_writes WHERE checkpoint = ?`);
	const deleteCheckpoint = db.prepare(`DELETE FROM lg_checkpoints WHERE id = ?`);
	for (const id of plan.dropped) {
		const key = keyOf.get(thread, packUuid(id));
		result.deletedWrites += deleteWrites.run(key).changes;
		result.deletedCheckpoints += deleteCheckpoint.run(key).changes;
	}
	const stubs = `SELECT id FROM lg_checkpoints WHERE thread = ? AND checkpoint_id < ? AND type IS NULL`;
	const oldestKept = packUuid(plan.oldestKept);
	result.deletedWrites += db.prepare(`DELETE FROM lg_writes WHERE checkpoint IN (${stubs})`).run(thread, oldestKept).changes;
	db.prepare(
		`DELETE FROM lg_checkpoints WHERE id IN (${stubs})
		 AND id NOT IN (SELECT parent FROM lg_checkpoints WHERE thread = ? AND parent IS NOT NULL)`
	).run(thread, oldestKept, thread);
}

/**
 * Delete log items that no remaining checkpoint or pending write (write-links.ts) of the thread
 * reaches. A log's recorded length is left as is, so positions are never reused and cached items
 * stay valid (see lg_logs in sqlite/checkpoint/migrations/integer-keys.ts).
 */
function collectLogs(db: Database.Database, threadId: string): number {
	const threads = `SELECT id FROM lg_threads WHERE thread_id = ?`;
	const rows = db
		.prepare(`SELECT channels, encoding FROM lg_checkpoints WHERE type IS NOT NULL AND thread IN (${threads})`)
		.all(threadId) as Pick<Row, 'channels' | 'encoding'>[];
	const links = db
		.prepare(
			`SELECT value, encoding FROM lg_writes WHERE encoding IN (?, ?)
			 AND checkpoint IN (SELECT id FROM lg_checkpoints WHERE thread IN (${threads}))`
		)
		.all(LINK.ITEM, LINK.ITEMS, threadId) as { value: Buffer; encoding: number }[];
	const reach = logReach(rows.map(channelMapOf), links.map(linkTarget));
	let deleted = 0;
	const logIds = db.prepare(`SELECT log_id FROM lg_logs WHERE thread IN (${threads})`).pluck().all(threadId) as number[];
	for (const logId of logIds) {
		const length = reach.get(logId) ?? 0;
		deleted += db.prepare(`DELETE FROM lg_log_items WHERE log_id = ? AND seq >= ?`).run(logId, length).changes;
		if (!reach.has(logId)) db.prepare(`DELETE FROM lg_logs WHERE log_id = ?`).run(logId);
	}
	return deleted;
}
