import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { ReusedFrom } from '../../protocol';
import { reusedFromOf } from '../agent/messages';
import type { ResolvedTool } from '../mcp/toolbox';
import { canonicalArgsHash } from './canonical-args';
import { derivedCallId } from './journal-key';
import type { JournalStorage } from '../storage/journal-storage';
import type { JournalEntry } from '../storage/journal-records';

/**
 * Whether a call is made again or takes its result from another branch of the thread.
 *
 * An edit or a regenerate re-runs steps whose calls already took effect on the branch it replaces.
 * A call that repeats one (same tool, canonically equal arguments) that succeeded on another branch
 * is not made again when its tool is not a read: the recorded result is reused and the tool message
 * says where it came from. A read runs again (a regenerated answer sees fresh pages), as does a call
 * of a tool that mcp.json's `safeToRepeat` allows to repeat. A call the branch has already made, or
 * taken over, is not "another branch's": the model calling it again here means to do it again, so
 * only calls outside the branch's own history count, the oldest first. Failed calls never count.
 *
 * A call the journal already knows by its own id is this branch's (a step resumed after a crash, or
 * a decision carried out) and goes its usual way. The journal is not searched for a tool that
 * repeats in a new branch.
 */
export async function reuseFromOtherBranch(
	call: { id: string; name: string; args: unknown },
	history: readonly BaseMessage[],
	tool: Pick<ResolvedTool, 'repeatsInNewBranch'> | undefined,
	threadId: string,
	/** The call's own journal entry, which the tools step has read already. */
	own: JournalEntry | undefined,
	journal: Pick<JournalStorage, 'succeededWith'>
): Promise<{ text: string; from: ReusedFrom } | undefined> {
	if (!tool || tool.repeatsInNewBranch || own) return undefined;
	const earlier = await journal.succeededWith(threadId, call.name, canonicalArgsHash(call.args));
	if (earlier.length === 0) return undefined;
	const onBranch = callsOfBranch(history);
	const other = earlier.find((e) => !onBranch.has(e.toolCallId));
	if (!other) return undefined;
	return {
		text: other.result ?? '',
		from: { toolCallId: other.toolCallId, ...(other.messageId ? { messageId: other.messageId } : {}) }
	};
}

/** The calls a branch's history made, and those it took over from other branches. */
function callsOfBranch(history: readonly BaseMessage[]): Set<string> {
	const ids = new Set<string>();
	for (const m of history) {
		if (AIMessage.isInstance(m)) {
			for (const [index, c] of (m.tool_calls ?? []).entries()) {
				if (!c.id) continue;
				ids.add(c.id);
				// The id it was journalled under if another call had taken its own (journal-key.ts).
				if (m.id) ids.add(derivedCallId(c.id, index, { messageId: m.id, step: -1 }));
			}
		}
		if (ToolMessage.isInstance(m)) {
			const from = reusedFromOf(m);
			if (from) ids.add(from.toolCallId);
		}
	}
	return ids;
}
