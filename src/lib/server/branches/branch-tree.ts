import type { LineageEntry } from '../storage/checkpoint-history';
/**
 * Pure. The branches of a thread from its checkpoint lineage and the messages at each branch's
 * tip: which checkpoints are tips, the path to one, and where the messages of branches diverge.
 *
 * A branch is the path from a root to a tip (a checkpoint nothing was written after). Along one
 * path the messages only grow: a step appends, an edit or a regenerate forks a new path from the
 * checkpoint before the message it replaces. So the message at position i of a path, once there,
 * stays, and two branches that hold the same message at i hold the same messages before it.
 */

export type Parents = ReadonlyMap<string, string | null>;

export function parentsOf(lineage: readonly LineageEntry[]): Map<string, string | null> {
	return new Map(lineage.map((e) => [e.id, e.parent]));
}

/** Checkpoints no other checkpoint follows, oldest first. */
export function tipsOf(lineage: readonly LineageEntry[]): string[] {
	const followed = new Set(lineage.flatMap((e) => (e.parent === null ? [] : [e.parent])));
	return lineage.filter((e) => !followed.has(e.id)).map((e) => e.id);
}

/** The checkpoints from the root to `id`, in order; empty for an id the lineage does not hold. */
export function pathTo(parents: Parents, id: string): string[] {
	const path: string[] = [];
	const seen = new Set<string>();
	for (let at: string | null | undefined = id; at != null && parents.has(at) && !seen.has(at); at = parents.get(at)) {
		seen.add(at);
		path.push(at);
	}
	return path.reverse();
}

/** A branch as the ids of the messages at its tip. */
export type BranchMessages = { tip: string; ids: readonly string[] };

/**
 * Where other branches diverge from the active one: for each position of `active` at which some
 * branch holds another message, every message held there by a branch that shares all of `active`
 * before it, each with one tip whose branch holds it (the active tip for the active message).
 */
export function divergences(active: BranchMessages, branches: readonly BranchMessages[]): Map<number, Map<string, string>> {
	const found = new Map<number, Map<string, string>>();
	for (const branch of branches) {
		let i = 0;
		while (i < active.ids.length && i < branch.ids.length && active.ids[i] === branch.ids[i]) i++;
		if (i >= active.ids.length || i >= branch.ids.length) continue;
		let at = found.get(i);
		if (!at) found.set(i, (at = new Map([[active.ids[i]!, active.tip]])));
		if (!at.has(branch.ids[i]!)) at.set(branch.ids[i]!, branch.tip);
	}
	return found;
}

/** How many checkpoints every path shares from its start. */
export function sharedPrefix(paths: readonly (readonly string[])[]): number {
	const first = paths[0] ?? [];
	let n = 0;
	while (n < first.length && paths.every((p) => p[n] === first[n])) n++;
	return n;
}

/**
 * The first index of `path` at or after `from` whose checkpoint satisfies `holds`, which must be
 * false then true along the path (a message, once at a position, stays); -1 when none does.
 * It gallops from `from`, then bisects: a few reads however long the branch, and fewer still when
 * the answer is near `from` (a message is first written a step or two after a fork).
 */
export async function firstHolding(
	path: readonly string[],
	holds: (checkpointId: string) => Promise<boolean>,
	from = 0
): Promise<number> {
	let lo = from;
	let hi = from;
	for (let step = 1; hi < path.length && !(await holds(path[hi]!)); step *= 2) {
		lo = hi + 1;
		hi = Math.min(path.length, lo + step - 1);
	}
	// Now nothing before lo holds, and hi holds or is the end.
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (await holds(path[mid]!)) hi = mid;
		else lo = mid + 1;
	}
	return lo < path.length ? lo : -1;
}
