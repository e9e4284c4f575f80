import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { ReusedFrom } from '../../protocol';
import type { CrashInjector } from '../crash-points';
import type { Toolbox } from '../mcp/toolbox';
import type { ToolOutcome } from '../mcp/tool-result';
import { reuseFromOtherBranch } from './branch-reuse';
import { canonicalArgsHash } from './canonical-args';
import { decideToolCall, mayRepeat, uncertainCallMessage, type UnfinishedCallPolicy } from './repeat-policy';
import type { ToolJournal } from './tool-journal';

export type ToolStepParts = {
	toolbox: Toolbox;
	journal: ToolJournal;
	policy: UnfinishedCallPolicy;
	crash: CrashInjector;
	now: () => string;
};

type ToolCall = NonNullable<AIMessage['tool_calls']>[number];

const CANCELLED = 'The call was cancelled before it finished; it may or may not have taken effect.';

/**
 * The tools step: the calls of the last assistant message, one at a time, each through the journal,
 * so a step repeated after a crash skips the calls that finished and reports or repeats (by policy)
 * the one that was in flight, and a call that repeats one another branch already made takes that
 * result (branch-reuse.ts). Every call carries `_meta.idempotencyKey` = "<thread>:<tool_call_id>",
 * the same on every attempt, so a server can deduplicate.
 */
export async function runToolStep(messages: BaseMessage[], config: RunnableConfig, parts: ToolStepParts) {
	const last = messages.at(-1);
	const calls = last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : [];
	await parts.toolbox.definitions();
	const threadId = String(config.configurable?.thread_id);
	const runId = String(config.configurable?.run_id ?? '');
	const step = Number(config.metadata?.langgraph_step ?? -1);
	const messageId = last?.id ?? null;
	const results: ToolMessage[] = [];
	for (const call of calls) {
		const id = call.id ?? randomUUID();
		const outcome = await runCall({ ...call, id }, { threadId, runId, step, messageId, history: messages, signal: config.signal }, parts);
		const reused = outcome.reusedFrom ? { additional_kwargs: { reused_from: outcome.reusedFrom } } : {};
		results.push(new ToolMessage({ content: outcome.text, name: call.name, tool_call_id: id, status: outcome.status, ...reused }));
	}
	return { messages: results };
}

async function runCall(
	call: ToolCall & { id: string },
	at: { threadId: string; runId: string; step: number; messageId: string | null; history: BaseMessage[]; signal?: AbortSignal },
	parts: ToolStepParts
): Promise<ToolOutcome & { reusedFrom?: ReusedFrom }> {
	const { journal, toolbox, now } = parts;
	const target = toolbox.resolve(call.name);
	const entry = journal.get(at.threadId, call.id);
	const reused = entry ? undefined : reuseFromOtherBranch(call, at.history, target, (tool, hash) => journal.succeededWith(at.threadId, tool, hash));
	if (reused) return { status: 'success', text: reused.text, reusedFrom: reused.from };
	const decision = decideToolCall(entry, target?.safeToRepeat ?? false, parts.policy);
	if (decision.action === 'reuse') {
		const { outcome, result } = decision.recorded;
		return { status: outcome === 'success' ? 'success' : 'error', text: result };
	}
	const idempotencyKey = `${at.threadId}:${call.id}`;
	const record = (outcome: ToolOutcome) => {
		journal.recordOutcome(at.threadId, call.id, { outcome: outcome.status, result: outcome.text }, now());
		return outcome;
	};
	if (decision.action === 'report-uncertain') return record({ status: 'error', text: uncertainCallMessage(call.name) });

	journal.recordIntent(
		{
			threadId: at.threadId,
			toolCallId: call.id,
			runId: at.runId,
			step: at.step,
			tool: call.name,
			argsHash: canonicalArgsHash(call.args),
			idempotencyKey,
			messageId: at.messageId
		},
		now(),
		!mayRepeat(target?.safeToRepeat ?? false, parts.policy)
	);
	if (!target) return record({ status: 'error', text: `The tool ${call.name} is not available.` });
	parts.crash('before-tool-call');
	let outcome: ToolOutcome;
	try {
		outcome = await toolbox.call(target, call.args, { signal: at.signal, idempotencyKey });
	} catch (e) {
		journal.recordOutcome(at.threadId, call.id, { outcome: 'cancelled', result: CANCELLED }, now());
		throw e;
	}
	parts.crash('after-tool-side-effect');
	return record(outcome);
}
