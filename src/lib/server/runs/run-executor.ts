import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from '@langchain/core/messages';
import { Command } from '@langchain/langgraph';
import { AgentEvents, type AgentEvent, type StepWrite } from '../agent/agent-events';
import type { AgentGraph } from '../agent/agent-graph';
import { CONVERSATION_MODEL } from '../models/conversation-model';
import { classifyRunError } from './classify-run-error';
import { redactor } from '../secrets/redactor';
import { configAt, shownCount, type LatestRead, type ThreadConfig, type ThreadReader } from './thread-reader';
import { OUTCOME_NOT_RECORDED, type PendingApproval, type RunEvent } from '../../protocol';
import type { CrashInjector } from '../crash-points';
import type { AppStorage } from '../storage/app-storage';
import type { RunOpening } from '../storage/run-storage';
import type { ActiveRun, RunInput, UserInput } from './active-run';
import { danglingToolCalls } from './dangling-tool-calls';
import { endEvent } from './end-event';
import type { RunOutcome } from '../storage/run-records';
import type { AttemptRecorder, Telemetry } from '../telemetry/telemetry';
import { attemptStart } from './attempt-start';

export type ExecutorParts = {
	graph: AgentGraph;
	threads: ThreadReader;
	storage: AppStorage;
	recursionLimit: number;
	/** Servers whose tools this run will not have, announced as a `warning` event. */
	unavailableServers: () => string[];
	/** Undefined, or a promise of the run's turn of the event loop when it is busy (see EventLoopShare). */
	turn: () => Promise<void> | undefined;
	crash: CrashInjector;
	now: () => string;
	log: (line: string, error?: unknown) => void;
	telemetry?: Telemetry;
};

function toRunEvent(e: AgentEvent): RunEvent {
	switch (e.type) {
		case 'token':
			return { event: 'token', data: e.text };
		case 'reasoning':
			return { event: 'reasoning', data: e.text };
		case 'trace':
			return { event: 'trace', data: e.note };
	}
}

const MOVED_ON = 'the conversation moved on';

/** Calls that waited for a person are denied as the conversation having moved on. */
async function moveOn(run: ActiveRun, opening: RunOpening, parts: ExecutorParts): Promise<void> {
	if (opening.awaitingDecision) await parts.storage.approvals.denyPending(run.conversationId, MOVED_ON, parts.now());
}

/** The message a run takes in (a new one, or the one a run the process lost before its first checkpoint had) and the thread's latest checkpoint. */
type TakenIn = { input: UserInput; latest: Promise<LatestRead> };

function takenIn(input: RunInput, readLatest: () => Promise<LatestRead>): TakenIn | undefined {
	const message = input.kind === 'message' ? input.input : input.kind === 'resume' ? input.lostInput : null;
	return message ? { input: message, latest: readLatest() } : undefined;
}

/**
 * A new message after an unfinished tools step closes the calls left open, so the history stays
 * valid, and moves the conversation on. `moved`: closing wrote a checkpoint, which moved the head.
 */
async function messageInput(run: ActiveRun, { input, latest }: TakenIn, opening: RunOpening, parts: ExecutorParts) {
	const head = configAt(run.conversationId, opening.head);
	// A thread that never branched is at its latest checkpoint, read alongside the opening.
	const open = danglingToolCalls(opening.head === undefined ? (await latest).messages : await parts.threads.messages(run.conversationId, head));
	if (open.length) {
		const closing = open.map(
			(call) => new ToolMessage({ content: `Not run: ${MOVED_ON}.`, name: call.name, tool_call_id: call.id, status: 'error' })
		);
		await parts.graph.updateState(head, { messages: closing }, 'tools');
	}
	await moveOn(run, opening, parts);
	return { value: { messages: [new HumanMessage({ content: input.message, id: input.id })] }, moved: open.length > 0 };
}

/** What the run's graph is streamed with, and whether closing open calls moved the head first. */
type GraphInput = Awaited<ReturnType<typeof graphInput>>;

async function graphInput(run: ActiveRun, input: RunInput, opening: RunOpening, parts: ExecutorParts, message: TakenIn | undefined) {
	if (input.kind === 'decided') return { value: new Command<{ decided: true }, Record<string, never>, 'tools'>({ resume: { decided: true } }), moved: false };
	if (input.kind === 'regenerate') {
		// A regenerate moves the conversation on as a new message does.
		await moveOn(run, opening, parts);
		return { value: null, moved: false };
	}
	return message ? messageInput(run, message, opening, parts) : { value: null, moved: false };
}

/**
 * Streams the run to its end, publishing its steps; `partial` keeps the answer text of the agent
 * step in progress when it stopped. The conversation's model and head are read once, with the
 * run's opening, not at each step. Returns the thread's messages as the last step left them
 * (LangGraph's `values`, which with durability "sync" are those of the checkpoint it last put), so
 * a run that ends by itself need not read its thread back (issue 26: a round trip on PostgreSQL, on
 * the way to the outcome); undefined if no step wrote any.
 */
async function streamRun(
	run: ActiveRun,
	input: RunInput,
	{ opened, message }: Opening,
	parts: ExecutorParts,
	partial: { text: string }
): Promise<BaseMessage[] | undefined> {
	const down = parts.unavailableServers();
	if (down.length) {
		run.log.publish({
			event: 'warning',
			data: { code: 'TOOLS_UNAVAILABLE', message: `Running without the tools of: ${down.join(', ')} (see /api/readyz).`, servers: down }
		});
	}
	const wait = parts.turn();
	if (wait) await wait;
	const opening = await opened;
	const graphIn = await graphInput(run, input, opening, parts, message);
	// Closing open calls wrote a checkpoint, which moved the head: read again then.
	const at = await parts.threads.startConfig(run.conversationId, graphIn.moved ? undefined : opening);
	// The graph starting at the latest checkpoint the run read opening takes that read (issue 26).
	const latest = message && !graphIn.moved && at.configurable.checkpoint_id === undefined ? await message.latest.catch(() => undefined) : undefined;
	const withdraw = latest?.handOver();
	try {
		return await streamSteps(run, graphIn.value, at, opening, parts, partial);
	} finally {
		withdraw?.();
	}
}

/** The run's graph streamed from `at`, its steps published as they come (streamRun). */
async function streamSteps(
	run: ActiveRun,
	value: GraphInput['value'],
	at: ThreadConfig,
	opening: RunOpening,
	parts: ExecutorParts,
	partial: { text: string }
): Promise<BaseMessage[] | undefined> {
	const stream = (await parts.graph.stream(value, {
		configurable: { ...at.configurable, run_id: run.id, [CONVERSATION_MODEL]: opening.model },
		streamMode: ['custom', 'values'],
		durability: 'sync',
		recursionLimit: parts.recursionLimit,
		signal: run.signal,
		control: run.control
	})) as unknown as AsyncIterable<['custom', StepWrite] | ['values', { messages?: BaseMessage[] }]>;
	const steps = new AgentEvents();
	const publish = (event: AgentEvent) => {
		if (event.type === 'trace' && event.note.event === 'enter') partial.text = '';
		if (event.type === 'token') {
			partial.text += event.text;
			parts.crash('mid-model-stream');
		}
		run.log.publish(toRunEvent(event));
	};
	let messages: BaseMessage[] | undefined;
	for await (const [mode, chunk] of stream) {
		// A step that pauses (interrupt()) adds a chunk of its interrupts alone: the thread is as the step before left it.
		if (mode === 'values') messages = chunk.messages ?? messages;
		else steps.of(chunk).forEach(publish);
	}
	steps.end().forEach(publish);
	return messages;
}

/** A cancelled answer keeps what was streamed of it, as the thread's last assistant message. */
async function keepPartialAnswer(run: ActiveRun, text: string, parts: ExecutorParts): Promise<void> {
	if (!text) return;
	const message = new AIMessage({ content: text, response_metadata: { stop_reason: 'cancelled' } });
	await parts.graph.updateState(await parts.threads.headConfig(run.conversationId), { messages: [message] }, 'agent');
}

function outcomeOf(run: ActiveRun, error: unknown, waiting: boolean): Omit<RunOutcome, 'messageCount'> {
	if (error === undefined) return { status: waiting ? 'waiting' : 'completed' };
	if (run.stopReason === 'cancel') return { status: 'cancelled' };
	if (run.stopReason === 'taken-over') {
		return { status: 'interrupted', error: { code: 'TAKEN_OVER', message: 'Another instance took this run over.' } };
	}
	if (run.stopReason === 'shutdown') {
		return { status: 'interrupted', error: { code: 'SHUTDOWN', message: 'The service shut down during this run; resume it to continue.' } };
	}
	const e = classifyRunError(error);
	// Whatever ended the run may quote a secret (a database's or a client's error); the recorded
	// error is streamed, stored and exported.
	return { status: 'failed', error: { code: e.code, message: redactor.redact(e.message) } };
}

/**
 * Executes one run to its end. The one place a run's outcome is written: persisted first, then
 * announced by exactly one terminal event.
 */
export async function executeRun(run: ActiveRun, input: RunInput, parts: ExecutorParts): Promise<void> {
	const { telemetry } = parts;
	const opening: Opening = {
		opened: parts.storage.runs.opening(run.conversationId),
		// Read beside the opening, not after it (issue 26: a round trip off a run's start on
		// PostgreSQL); used if the opening finds no stored head, else read again at the head.
		message: takenIn(input, () => parts.threads.latest(run.conversationId))
	};
	// Handled here at once: the run awaits them after its turn of the event loop, and fails on their error then.
	const opened = opening.opened.catch(() => undefined);
	opening.message?.latest.catch(() => undefined);
	if (!telemetry) return attemptRun(run, input, opening, parts);
	// Without it (the database away) the attempt is still traced, unlinked.
	const attempt = telemetry.attempt(attemptStart(run.id, run.conversationId, (await opened)?.latestRuns ?? []));
	return attempt.within(() => attemptRun(run, input, opening, parts, attempt));
}

/** What a run reads as it begins: its opening, and the message it takes in with the thread's latest messages. */
type Opening = { opened: Promise<RunOpening>; message: TakenIn | undefined };

async function attemptRun(run: ActiveRun, input: RunInput, opening: Opening, parts: ExecutorParts, attempt?: AttemptRecorder): Promise<void> {
	let failure: unknown;
	const partial = { text: '' };
	let ended: BaseMessage[] | undefined;
	try {
		ended = await streamRun(run, input, opening, parts, partial);
		parts.crash('after-final-checkpoint');
	} catch (e) {
		failure = e ?? new Error('unknown failure');
		if (!run.stopReason) parts.log(`Run ${run.id} failed`, e);
	}
	const unrecorded = await run.unconfirmed.settled();
	if (unrecorded) {
		if (!run.stopReason) parts.log(`Run ${run.id}: a write its steps sent failed`, unrecorded.error);
		failure ??= unrecorded.error ?? new Error('unknown failure');
	}
	let approvals: PendingApproval[] = [];
	let recorded = false;
	let fenced = isFenced(failure);
	let outcome = outcomeOf(run, failure, false);
	try {
		if (outcome.status === 'cancelled') await keepPartialAnswer(run, partial.text, parts);
		// A run stopped or failed may have written after its last step (a partial answer kept): read then.
		const messages = (failure === undefined && ended) || (await parts.threads.messages(run.conversationId, await endConfig(run, opening.opened, parts)));
		// Only the run that holds the conversation asks a person, and only from a tools step it left
		// unfinished: with no call left open there is nothing to read.
		if (failure === undefined && danglingToolCalls(messages).length) {
			approvals = await parts.storage.approvals.pending(run.conversationId);
			outcome = outcomeOf(run, failure, approvals.length > 0);
		}
		const messageCount = shownCount(messages);
		parts.crash('before-finish-run');
		recorded = await parts.storage.runs.finish(run.id, { ...outcome, messageCount }, parts.now());
		// Refused without an error: the run is no longer this process's to record (taken over).
		fenced ||= !recorded;
	} catch (e) {
		fenced ||= isFenced(e);
		parts.log(`Run ${run.id}: recording its outcome failed`, e);
	}
	attempt?.end({ status: outcome.status, recorded, fenced, ...(outcome.error ? { errorType: outcome.error.code } : {}) });
	if (recorded && outcome.status === 'waiting') {
		run.log.publish({ event: 'approval', data: { conversation: run.conversationId, run: run.id, approvals } });
	}
	run.log.publish(terminalEvent(run, outcome, recorded));
}

/**
 * Where the thread's messages are read when the run ends: a thread with no stored head at the run's
 * start has none at its end (only a claim or a switch stores one, and neither happens while a run
 * holds the conversation), so its latest checkpoint is read without asking; a stored head moved
 * with the run's puts and is read again.
 */
async function endConfig(run: ActiveRun, opening: Promise<RunOpening>, parts: ExecutorParts) {
	const opened = await opening.catch(() => undefined);
	return opened && opened.head === undefined ? configAt(run.conversationId, undefined) : parts.threads.headConfig(run.conversationId);
}

/** A write another instance's takeover refused (postgres/app/run-fence.ts RunFencedError), told by its code. */
const isFenced = (e: unknown) => (e as { code?: unknown } | undefined)?.code === 'RUN_FENCED';

function terminalEvent(run: ActiveRun, outcome: Omit<RunOutcome, 'messageCount'>, recorded: boolean): RunEvent {
	const ids = { conversation: run.conversationId, run: run.id };
	if (!recorded) {
		return {
			event: 'chat-error',
			data: { code: OUTCOME_NOT_RECORDED, message: 'The run ended but its outcome could not be recorded.', ...ids }
		};
	}
	if (outcome.status === 'failed' && outcome.error) {
		return { event: 'chat-error', data: { code: outcome.error.code, message: outcome.error.message, ...ids } };
	}
	return endEvent(ids, outcome.status, outcome.error?.code);
}
