/**
 * A thread's states as the protocol shows them: the current one (the active branch's head, where
 * Sophos's page reads too), the one at a checkpoint, and the history, newest first, of every
 * branch or of one. Read from the checkpoints through the graph; never runs a step.
 */
import type { BaseMessage } from '@langchain/core/messages';
import { AIMessage } from '@langchain/core/messages';
import type { StateSnapshot } from '@langchain/langgraph';
import { z } from '../../protocol/zod';
import type { PendingApproval } from '../../protocol';
import type { AgentGraph } from '../agent/agent-graph';
import { toMessageDtos } from '../agent/messages';
import { parentsOf, pathTo } from '../branches/branch-tree';
import type { ThreadReader } from '../runs/thread-reader';
import type { ApprovalStorage } from '../storage/approval-storage';
import type { ThreadStorage } from '../storage/thread-storage';
import type { CheckpointHistory } from '../storage/checkpoint-history';
import { checkpointOf, type ProtocolInterrupt, type ThreadState, type ThreadTask } from './protocol-dtos';
import type { ProtocolRefusal } from './protocol-refusal';
import { APPROVAL_TASK_NAME, askedCallOf, interruptOfCalls, threadValuesOf, type AskedCall } from './thread-values';

export type ThreadStatesParts = {
	graph: Pick<AgentGraph, 'getState' | 'getStateHistory'>;
	threads: Pick<ThreadReader, 'headConfig'>;
	approvals: Pick<ApprovalStorage, 'pending'>;
	history: Pick<CheckpointHistory, 'lineage'>;
	/** Which threads exist: a state is refused for one that does not. */
	stored: Pick<ThreadStorage, 'get'>;
};

export type HistoryQuery = {
	limit: number;
	/** Only checkpoints written before this one. */
	before?: string;
	/** Only checkpoints whose metadata holds these values. */
	metadata?: Record<string, unknown>;
	/** Only this checkpoint and its ancestors: one branch. */
	checkpoint?: string;
};

/** How an older checkpoint's question reads once it has been answered: its reason was not kept. */
const DECIDED = 'Asked for approval (decided since)';

/** What the tools step hands LangGraph's interrupt() (tools/tool-step.ts): the calls it asks about. */
const ToolStepInterruptSchema = z.object({ approvals: z.array(z.string()) });

/** The parts of checkpoint metadata a client reads; `writes` would repeat whole messages. */
function metadataOf(snapshot: StateSnapshot): Record<string, unknown> {
	const m = (snapshot.metadata ?? {}) as { source?: unknown; step?: unknown; parents?: unknown };
	return { source: m.source ?? null, step: m.step ?? null, parents: m.parents ?? {} };
}

/**
 * A task's interrupts in agent-chat-ui's schema. The calls come from the tools step's own interrupt
 * value; a call that still waits is described as the approval card describes it, one decided
 * since (an older checkpoint's) by the assistant message that made it.
 */
function interruptsOf(
	task: StateSnapshot['tasks'][number],
	messages: readonly BaseMessage[],
	pending: readonly PendingApproval[]
): ProtocolInterrupt[] {
	if (task.name !== APPROVAL_TASK_NAME) return [];
	const ids = task.interrupts.flatMap((i) => ToolStepInterruptSchema.safeParse(i.value).data?.approvals ?? []);
	if (ids.length === 0) return [];
	const last = messages.findLast((m) => AIMessage.isInstance(m)) as AIMessage | undefined;
	const asked = ids.flatMap((id): AskedCall[] => {
		const waiting = pending.find((p) => p.toolCallId === id);
		if (waiting) return [askedCallOf(waiting)];
		const call = last?.tool_calls?.find((c) => c.id === id);
		return call ? [{ toolCallId: id, tool: call.name, args: call.args, description: DECIDED }] : [];
	});
	const interrupt = interruptOfCalls(asked);
	return interrupt ? [interrupt] : [];
}

function errorText(error: unknown): string | null {
	if (error === undefined || error === null) return null;
	return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * One snapshot as a ThreadState; `pending`: the calls waiting now, described in the tasks. A pause
 * shows in the tasks only, never as `__interrupt__` in the values, as LangGraph's own servers show
 * it: the SDK's useStream reads a thread's values until a resumed run's first `values` event, and
 * an interrupt there would show the question just answered again meanwhile.
 */
function toThreadState(threadId: string, snapshot: StateSnapshot, pending: readonly PendingApproval[]): ThreadState {
	const messages = (snapshot.values as { messages?: BaseMessage[] } | undefined)?.messages ?? [];
	const checkpointId = (snapshot.config.configurable?.checkpoint_id as string | undefined) ?? null;
	const parentId = snapshot.parentConfig?.configurable?.checkpoint_id as string | undefined;
	const tasks: ThreadTask[] = snapshot.tasks.map((t) => ({
		id: t.id,
		name: t.name,
		error: errorText(t.error),
		interrupts: interruptsOf(t, messages, pending),
		checkpoint: null,
		state: null
	}));
	return {
		values: threadValuesOf(toMessageDtos(messages), []),
		next: [...snapshot.next],
		checkpoint: checkpointOf(threadId, checkpointId),
		metadata: checkpointId === null ? {} : metadataOf(snapshot),
		created_at: snapshot.createdAt ?? null,
		parent_checkpoint: parentId ? checkpointOf(threadId, parentId) : null,
		tasks
	};
}

export class ThreadStates {
	constructor(private readonly parts: ThreadStatesParts) {}

	/** At the active branch's head, the calls waiting for a decision in its tasks. */
	async current(threadId: string): Promise<ThreadState> {
		const [snapshot, pending] = await Promise.all([
			this.parts.graph.getState(await this.parts.threads.headConfig(threadId)),
			this.parts.approvals.pending(threadId)
		]);
		return toThreadState(threadId, snapshot, pending);
	}

	/** At `checkpointId`, or at the head when none is named; refused for a thread or a checkpoint that does not exist. */
	async state(threadId: string, checkpointId?: string | null): Promise<ThreadState | ProtocolRefusal> {
		if (!(await this.parts.stored.get(threadId))) return { refused: 'thread-not-found', threadId };
		if (!checkpointId) return this.current(threadId);
		return (await this.at(threadId, checkpointId)) ?? { refused: 'checkpoint-not-found', threadId, checkpointId };
	}

	/** At a checkpoint of the thread; undefined for one it does not have. */
	private async at(threadId: string, checkpointId: string): Promise<ThreadState | undefined> {
		if (!(await this.parts.history.lineage(threadId)).some((c) => c.id === checkpointId)) return undefined;
		const config = { configurable: { thread_id: threadId, checkpoint_id: checkpointId } };
		const [snapshot, pending] = await Promise.all([this.parts.graph.getState(config), this.parts.approvals.pending(threadId)]);
		return toThreadState(threadId, snapshot, pending);
	}

	/**
	 * Newest first, every branch's checkpoints (a branch shares those before its fork), each with its
	 * parent, so a client rebuilds the tree (the SDK's branch context does). Refused for a thread
	 * that does not exist, or when `checkpoint` names one the thread does not have.
	 */
	async history(threadId: string, query: HistoryQuery): Promise<ThreadState[] | ProtocolRefusal> {
		if (!(await this.parts.stored.get(threadId))) return { refused: 'thread-not-found', threadId };
		let only: ReadonlySet<string> | undefined;
		if (query.checkpoint !== undefined) {
			const lineage = await this.parts.history.lineage(threadId);
			if (!lineage.some((c) => c.id === query.checkpoint)) return { refused: 'checkpoint-not-found', threadId, checkpointId: query.checkpoint };
			only = new Set(pathTo(parentsOf(lineage), query.checkpoint));
		}
		const pending = await this.parts.approvals.pending(threadId);
		const states: ThreadState[] = [];
		const options = {
			...(query.before ? { before: { configurable: { thread_id: threadId, checkpoint_id: query.before } } } : {}),
			...(query.metadata ? { filter: query.metadata } : {}),
			// Filtered to one branch here, so the saver's limit would cut the wrong checkpoints.
			...(only ? {} : { limit: query.limit })
		};
		for await (const snapshot of this.parts.graph.getStateHistory({ configurable: { thread_id: threadId } }, options)) {
			const id = snapshot.config.configurable?.checkpoint_id as string | undefined;
			if (only && (!id || !only.has(id))) continue;
			states.push(toThreadState(threadId, snapshot, pending));
			if (states.length >= query.limit) break;
		}
		return states;
	}
}
