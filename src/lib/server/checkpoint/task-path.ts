// How a pending write's task path and task id are stored (the task_path and task_id columns of the
// SQLite store's lg_writes). Pure.
//
// LangGraph names the task of a node `~__pregel_pull, <node>` (taskPathStr of [PULL, node]), and
// nearly every write carries one: for those only `<node>` is stored, as a BLOB, which saves 16 bytes
// a write. Any other path is stored as TEXT, as it is. Since the two kinds do not sort as the paths
// do, writes are put in order after reading (compareWrites), not by SQL.

const PULL = '~__pregel_pull, ';

/** A canonical UUID in lowercase, as LangGraph names every task (uuid5 of the checkpoint and path). */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A task id that is a canonical UUID is stored as its 16 bytes (a BLOB), which saves 20 bytes a
 * write; any other id as TEXT, as it is. One id maps to one key either way, so a write's primary
 * key (checkpoint, task_id, idx) still tells a retried write from a new one.
 */
export function packTaskId(taskId: string): string | Buffer {
	return UUID.test(taskId) ? Buffer.from(taskId.replaceAll('-', ''), 'hex') : taskId;
}

export function unpackTaskId(stored: string | Uint8Array): string {
	if (typeof stored === 'string') return stored;
	const hex = Buffer.from(stored).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

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
