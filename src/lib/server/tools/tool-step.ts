import { randomUUID } from 'node:crypto';
import { AIMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import { interrupt } from '@langchain/langgraph';
import { deniedMessage, planCall, type CallPlan } from '../approvals/approval-gate';
import { composedUrls } from '../approvals/exfiltration-guard';
import { readRunContext, type RunContext } from '../approvals/run-context';
import type { CrashInjector } from '../crash-points';
import type { Elicitations } from '../elicitation/elicitations';
import type { Toolbox } from '../mcp/toolbox';
import type { ToolOutcome } from '../mcp/tool-result';
import type { AppStorage } from '../storage/app-storage';
import { reuseFromOtherBranch } from './branch-reuse';
import { canonicalArgsHash } from './canonical-args';
import { derivedCallId, isEntryOf } from './journal-key';
import { mayRepeat, uncertainCallMessage, type UnfinishedCallPolicy } from './repeat-policy';
import type { JournalEntry } from '../storage/journal-records';
import type { Telemetry } from '../telemetry/telemetry';
import type { ToolOutcomeLabel } from '../telemetry/metrics-registry';
import type { UnconfirmedWrites } from './unconfirmed-writes';

export type ToolStepParts = {
	toolbox: Toolbox;
	storage: Pick<AppStorage, 'journal' | 'approvals' | 'allowedTools'>;
	policy: UnfinishedCallPolicy;
	/** EXFILTRATION_GUARD */
	guard: boolean;
	/** UNTRUSTED_CONTENT_WRITES */
	untrustedWrites: 'ask' | 'auto';
	/** APPROVAL_TIMEOUT_MS */
	approvalTimeoutMs: number;
	/** MAX_TOOL_CALLS_PER_STEP: calls past it are answered as errors the model sees, never run. */
	maxCallsPerStep: number;
	crash: CrashInjector;
	now: () => string;
	telemetry?: Telemetry;
	/** Where a server's questions during a call go to the person (MCP elicitation). */
	elicitations?: Elicitations;
	/** Where the run `runId` holds the writes it does not wait for: a call's outcome goes there, if the run is one this process executes. */
	unconfirmed?: (runId: string) => UnconfirmedWrites | undefined;
};

/** `key`: the call's id in the journal and in approvals, its own id unless another call took it (journal-key.ts). */
type ToolCall = NonNullable<AIMessage['tool_calls']>[number] & { id: string; key: string };

type ReadyPlan = Exclude<CallPlan, { kind: 'ask' }>;

/** `messageId`: the assistant message whose calls these are. */
type At = { threadId: string; runId: string; step: number; messageId: string | null; signal?: AbortSignal };

const CANCELLED = 'The call was cancelled before it finished; it may or may not have taken effect.';

const overLimit = (max: number) =>
	`Not run: at most ${max} tool calls are made per step (MAX_TOOL_CALLS_PER_STEP). ` +
	'Call it again in a later step if it is still needed.';

/**
 * The tools step: the calls of the last assistant message, one at a time, each through the journal,
 * so a step repeated after a crash skips the calls that finished and reports or repeats (by policy)
 * the one that was in flight, and a call that repeats one another branch already made takes that
 * result without running or asking anyone (branch-reuse.ts). Every call carries
 * `_meta.idempotencyKey` = "<thread>:<journal id>", the same on every attempt, so a server can
 * deduplicate.
 *
 * When any call needs a person's decision, none of the step's calls runs: the requests are
 * journalled and the step pauses with LangGraph's interrupt(). The run that carries out the
 * decisions runs this step again, finds every call decided in the journal and goes on.
 */
export async function runToolStep(messages: BaseMessage[], config: RunnableConfig, parts: ToolStepParts) {
	const last = messages.at(-1);
	const all = (last && AIMessage.isInstance(last) ? (last.tool_calls ?? []) : []).map((c) => ({ ...c, id: c.id ?? randomUUID() }));
	// The calls past the cap get no plan, no journal entry and no approval: the same answer on every
	// attempt of the step, so a step repeated after a crash needs nothing recorded for them.
	const calls = all.slice(0, parts.maxCallsPerStep);
	const resolved: ToolCall[] = [];
	const refused = all
		.slice(parts.maxCallsPerStep)
		.map((call) => new ToolMessage({ content: overLimit(parts.maxCallsPerStep), name: call.name, tool_call_id: call.id, status: 'error' }));
	await parts.toolbox.definitions();
	const at: At = {
		threadId: String(config.configurable?.thread_id),
		runId: String(config.configurable?.run_id ?? ''),
		step: Number(config.metadata?.langgraph_step ?? -1),
		messageId: last?.id ?? null,
		signal: config.signal
	};
	const context = readRunContext(messages, { tool: (name) => parts.toolbox.resolve(name), resource: (server) => parts.toolbox.resourceNature(server) });
	const taken: (Awaited<ReturnType<typeof reuseFromOtherBranch>> | undefined)[] = [];
	const plans: (CallPlan | undefined)[] = [];
	const seen = new Set<string>();
	for (const [index, model] of calls.entries()) {
		// The decision on a call's first attempt is read beside its journal entry (a round trip fewer
		// on PostgreSQL): what a call without an entry is planned by. Another id or attempt reads again.
		const firstDecision = seen.has(model.id) ? undefined : parts.storage.approvals.decision(at.threadId, model.id, 0);
		firstDecision?.catch(() => undefined);
		// Read once per call: both the branch check and the plan go by it.
		const { call, entry } = await ownEntry(model, index, seen, at, parts.storage.journal);
		const reused = await reuseFromOtherBranch(call, messages, parts.toolbox.resolve(call.name), at.threadId, entry, parts.storage.journal);
		taken.push(reused);
		const decision = call.key === model.id && !entry?.attempts ? firstDecision : undefined;
		plans.push(reused ? undefined : await plan(call, entry, at, context, parts, decision));
		resolved.push(call);
	}
	const asks = resolved.flatMap((call, i) => {
		const p = plans[i];
		return p?.kind === 'ask' ? [{ toolCallId: call.key, attempt: p.attempt, tool: call.name, args: call.args, reason: p.reason }] : [];
	});
	if (asks.length) {
		const now = parts.now();
		const expiresAt = new Date(Date.parse(now) + parts.approvalTimeoutMs).toISOString();
		await parts.storage.approvals.request(at.threadId, at.runId, asks, now, expiresAt);
		// In a run resumed with Command, interrupt() first hands back that run's resume value instead
		// of pausing; decisions are read from the journal, so a call still undecided pauses again.
		for (;;) interrupt({ approvals: asks.map((a) => a.toolCallId) });
	}
	const ready = plans.map((p) => (p?.kind === 'ask' ? undefined : p));
	const results: ToolMessage[] = [];
	for (const [i, call] of resolved.entries()) {
		const from = taken[i];
		const target = parts.toolbox.resolve(call.name);
		const mcp = target ? { server: target.server.name, transport: target.server.transport, session: target.server.sessionId } : {};
		const watch = parts.telemetry?.tool(at.runId, { tool: call.name, callId: call.id, ...mcp, args: call.args });
		let outcome: ToolOutcome;
		try {
			outcome = from ? { status: 'success', text: from.text } : await runCall(call, ready[i]!, at, parts, watch?.meta() ?? {});
		} catch (e) {
			watch?.end('cancelled');
			throw e;
		}
		watch?.end(from ? 'reused' : outcomeLabel(ready[i]!, outcome, target !== undefined), outcome.text);
		const reused = from ? { additional_kwargs: { reused_from: from.from } } : {};
		results.push(new ToolMessage({ content: outcome.text, name: call.name, tool_call_id: call.id, status: outcome.status, ...reused }));
	}
	return { messages: [...results, ...refused] };
}

/**
 * The call with its journal id, and its journal entry: the entry of its own id only if it was made
 * for this call; otherwise, or when an earlier call of the same message has the id, the entry of an
 * id derived from its message and position (journal-key.ts).
 */
async function ownEntry(
	model: Omit<ToolCall, 'key'>,
	index: number,
	seen: Set<string>,
	at: At,
	journal: ToolStepParts['storage']['journal']
): Promise<{ call: ToolCall; entry: JournalEntry | undefined }> {
	const first = seen.has(model.id) ? undefined : await journal.get(at.threadId, model.id);
	const ownsId = !seen.has(model.id) && (!first || isEntryOf(first, model, at));
	seen.add(model.id);
	if (ownsId) return { call: { ...model, key: model.id }, entry: first };
	const key = derivedCallId(model.id, index, at);
	const entry = await journal.get(at.threadId, key);
	return { call: { ...model, key }, entry: entry && isEntryOf(entry, model, at) ? entry : undefined };
}

/** `decision`: the decision on this call's attempt, if already being read. */
async function plan(
	call: ToolCall,
	entry: JournalEntry | undefined,
	at: At,
	context: RunContext,
	parts: ToolStepParts,
	decision = parts.storage.approvals.decision(at.threadId, call.key, entry?.attempts ?? 0)
): Promise<CallPlan> {
	const { allowedTools } = parts.storage;
	const target = parts.toolbox.resolve(call.name);
	return planCall({
		args: call.args,
		entry,
		decision: await decision,
		tool: target && {
			name: call.name,
			approval: target.approval,
			openWorld: target.openWorld,
			readOnly: target.readOnly,
			safeToRepeat: target.safeToRepeat
		},
		// Read only where planCall looks at it: a tool that asks.
		allowed: target?.approval === 'ask' ? await allowedTools.has(call.name) : false,
		unfinished: parts.policy,
		composed: parts.guard && target?.openWorld ? composedUrls(call.args, context.known) : [],
		context,
		guard: parts.guard,
		untrustedWrites: parts.untrustedWrites
	});
}

/** Pure. The journal outcome a call is counted under: a reused or denied call is marked so, never as executed. */
function outcomeLabel(plan: ReadyPlan, outcome: ToolOutcome, known: boolean): ToolOutcomeLabel {
	if (plan.kind === 'reuse') return 'reused';
	if (plan.kind === 'denied') return 'denied';
	if (plan.kind === 'call' && !known) return 'unknown';
	return outcome.status;
}

/** `trace`: the call's `traceparent` and `tracestate`, sent in `params._meta` beside the idempotency key. */
async function runCall(call: ToolCall, plan: ReadyPlan, at: At, parts: ToolStepParts, trace: Record<string, string>): Promise<ToolOutcome> {
	const { toolbox, now } = parts;
	const { journal } = parts.storage;
	if (plan.kind === 'reuse') {
		return { status: plan.recorded.outcome === 'success' ? 'success' : 'error', text: plan.recorded.result };
	}
	const record = async (outcome: ToolOutcome) => {
		const written = journal.recordOutcome(at.threadId, call.key, at.runId, { outcome: outcome.status, result: outcome.text }, now());
		// The step ends without waiting for the outcome's commit, the run's end waits for it (issue
		// 26): the step's checkpoint follows it, and holds the result too. A crash before it commits
		// leaves the call's outcome unknown, as a crash before it was sent always did.
		const unconfirmed = parts.unconfirmed?.(at.runId);
		if (unconfirmed) unconfirmed.add(written);
		else await written;
		return outcome;
	};
	const target = toolbox.resolve(call.name);
	const idempotencyKey = `${at.threadId}:${call.key}`;
	let sent = false;
	let answered = false;
	const intent = async () => {
		sent = true;
		await journal.recordIntent(
			{
				threadId: at.threadId,
				toolCallId: call.key,
				runId: at.runId,
				step: at.step,
				tool: call.name,
				// The arguments it is made with (a person may have edited them), so another branch finds it by those.
				argsHash: canonicalArgsHash(plan.kind === 'call' ? plan.args : call.args),
				callHash: canonicalArgsHash(call.args),
				idempotencyKey,
				messageId: at.messageId
			},
			now(),
			!mayRepeat(target?.safeToRepeat ?? false, parts.policy)
		);
	};
	if (plan.kind === 'report-uncertain') {
		const why = plan.reason ? ` The person said: ${plan.reason}` : '';
		return record({ status: 'error', text: uncertainCallMessage(call.name) + why });
	}
	if (plan.kind === 'denied') {
		await intent();
		return record({ status: 'error', text: deniedMessage(plan.reason) });
	}
	if (!target) {
		await intent();
		return record({ status: 'error', text: `The tool ${call.name} is not available.` });
	}
	try {
		// The intent is recorded when the request goes out, in the call's turn behind the server's other
		// writes, and the outcome before the turn passes on: a call still waiting when the process dies
		// was never sent, and is made on resume.
		return await toolbox.call(target, plan.args, {
			signal: at.signal,
			idempotencyKey,
			trace,
			ask: parts.elicitations && ((request, closed) => parts.elicitations!.ask({ conversation: at.threadId, run: at.runId, server: target.server.name, tool: call.name }, request, closed)),
			beforeSend: async () => {
				await intent();
				parts.crash('before-tool-call');
			},
			afterAnswer: async (outcome) => {
				answered = true;
				// Not sent (its server was down): recorded with its outcome, so a resumed step does not wonder.
				if (!sent) await intent();
				parts.crash('after-tool-side-effect');
				await record(outcome);
			}
		});
	} catch (e) {
		// A failure to record the answer is not a cancelled call.
		if (!answered) await journal.recordOutcome(at.threadId, call.key, at.runId, { outcome: 'cancelled', result: CANCELLED }, now());
		throw e;
	}
}
