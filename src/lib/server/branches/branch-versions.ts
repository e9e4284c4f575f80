import type { MessageDto, Versions } from '../../protocol';
import { divergences, firstHolding, pathTo, sharedPrefix } from './branch-tree';
import type { BranchReader } from './branch-reader';

/**
 * The active branch's messages (as the API shows them, in order) with `versions` on each one where
 * branches diverge. Versions are ordered by when each first appeared (the first checkpoint holding
 * it on its branch; checkpoint ids sort by time), so a version keeps its number as branches grow.
 * A thread that never branched is returned as it is, without reading anything more.
 */
export async function withVersions(reader: BranchReader, threadId: string, messages: MessageDto[]): Promise<MessageDto[]> {
	if (!(await reader.hasBranched(threadId))) return messages;
	const cache = new Map<string, string[]>();
	const loaded = await reader.load(threadId, cache);
	if (!loaded) return messages;
	const versions = new Map<number, Versions>();
	for (const [index, alternatives] of divergences(loaded.active, loaded.tips)) {
		const paths = [...alternatives].map(([id, tip]) => ({ id, tip, path: pathTo(loaded.parents, tip) }));
		// What every alternative's path shares comes before all of them: the search starts past it.
		const shared = sharedPrefix(paths.map((p) => p.path));
		const born: { id: string; at: string }[] = [];
		for (const { id, tip, path } of paths) {
			const first = await firstHolding(path, async (c) => (await reader.shownIdsAt(threadId, c, cache)).length > index, shared);
			born.push({ id, at: path[first] ?? tip });
		}
		born.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
		const ids = born.map((b) => b.id);
		versions.set(index, { index: ids.indexOf(loaded.active.ids[index]!), count: ids.length, ids });
	}
	return messages.map((m, i) => {
		const v = versions.get(i);
		return v && m.id === loaded.active.ids[i] ? { ...m, versions: v } : m;
	});
}
