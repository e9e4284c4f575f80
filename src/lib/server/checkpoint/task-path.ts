// How a pending write's task path and task id are stored (the task_path and task_id columns of the
// SQLite store's lg_writes). Pure.
//
// LangGraph names the task of a node `~__pregel_pull, <node>` (taskPathStr of [PULL, node]), and
// nearly every write carries one: for those only `<node>` is stored, as a BLOB, which saves 16 bytes
// a write. Any other path is stored as TEXT, as it is. Since the two kinds do not sort as the paths
// do, writes are put in order after reading (compareWrites), not by SQL.

import { packUuid, unpackUuid } from './packed-uuid.js';

const PULL = '~__pregel_pull, ';

/**
 * A task id is stored as packed-uuid.ts keeps ids: one id maps to one key either way, so a write's
 * primary key (checkpoint, task_id, idx) still tells a retried write from a new one.
 */
export const packTaskId: (taskId: string) => string | Buffer = packUuid;
export const unpackTaskId: (stored: string | Uint8Array) => string = unpackUuid;

export function packTaskPath(path: string): string | Buffer {
	return path.startsWith(PULL) ? Buffer.from(path.slice(PULL.length), 'utf8') : path;
}

export function unpackTaskPath(stored: string | Uint8Array): string {
	return typeof stored === 'string' ? stored : PULL + Buffer.from(stored).toString('utf8');
}

type Sortable = { task_path: string; task_id: string; idx: number };

/**
 * writesSortKey order (task path, task id, idx), the order LangGraph applies a superstep's writes
 * in, with strings compared as SQLite's BINARY collation does (UTF-8 bytes).
 */
export function compareWrites(a: Sortable, b: Sortable): number {
	return (
		Buffer.compare(Buffer.from(a.task_path), Buffer.from(b.task_path)) ||
		Buffer.compare(Buffer.from(a.task_id), Buffer.from(b.task_id)) ||
		a.idx - b.idx
	);
}
