/**
 * Runs of the LangGraph Agent Server protocol over Sophos's own: every run starts through
 * RunService (the one way into a run), is followed through Sophos's stream of it, and is read from
 * the run ledger. What is added here is the protocol's view: its run ids across resumes, its
 * statuses, its stream, and how its requests (a message, a Command, a checkpoint) become Sophos's.
 */
import { createHash } from 'node:crypto';
import type { Decision, RunRecord } from '../../protocol';
import { toMessageDtos, isShownMessage } from '../agent/messages';
import type { BranchReader } from '../branches/branch-reader';
import { ApiError } from '../errors';
import type { ModelCatalog, ModelRefusal } from '../models/model-catalog';
import { isRefusal, type RunRefusal } from '../runs/run-refusal';
import type { RunService } from '../runs/run-service';
import type { StartRequest } from '../runs/start-request';
import type { ThreadReader } from '../runs/thread-reader';
import type { AppStorage } from '../storage/app-storage';
import type { LiveResponseOptions } from '../stream/sse-response';
import { parseLastEventId } from '../stream/sse-response';
import { ASSISTANT_ID, GRAPH_ID } from './assistant';
import type { ThreadValues } from './protocol-dtos';
import { readRunCreate, type HitlDecision, type RunCreate, type RunIntent, type RunOptions } from './run-create';
import {
	protocolStreamResponse,
	RunStreamTranslator,
	settledStreamResponse,
	type ProtocolFrame
} from './run-stream';
import { chainOf, isFinished, pendingRunOf, protocolRunIds, protocolRunOf, type ProtocolRun } from './run-view';
import { interruptIdOf, threadValuesOf } from './thread-values';

export type ProtocolRunsParts = {
	runService: RunService;
	storage: Pick<AppStorage, 'runs' | 'queue' | 'conversations' | 'approvals' | 'branches' | 'threads'>;
	threads: ThreadReader;
	branchReader: BranchReader;
	models: Pick<ModelCatalog, 'choose'>;
	maxMessageChars: number;
	/** Sophos's own stream options for a run (MAX_STREAMS_PER_RUN, the reader backlog, the metrics). */
	streamOptions: (runId: string) => LiveResponseOptions;
	log: (line: string, error?: unknown) => void;
	/** The error a refusal of the run core answers with, as Sophos's own API gives it (http/run-refusal-error.ts). */
	refusalError: (refusal: RunRefusal | ModelRefusal) => Error;
};

/**
 * The run id a client's message id stands for on a thread, a name-based uuid (RFC 9562 version 5
 * layout over SHA-1): the SDK retries a POST after a 5xx or a dropped connection, and the retry
 * must find the run the first attempt started.
 */
export function runIdOfMessage(threadId: string, clientMessageId: string): string {
	const hash = createHash('sha1').update('sophos-run\0').update(threadId).update('\0').update(clientMessageId).digest();
	hash[6] = (hash[6]! & 0x0f) | 0x50;
	hash[8] = (hash[8]! & 0x3f) | 0x80;
	const hex = hash.subarray(0, 16).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** A run created: its protocol view, and where its stream is. */
export type CreatedRun = { run: ProtocolRun; options: RunOptions; threadId: string };

/** The protocol's Last-Event-ID: `-1` means from the first event, as does no header. */
export function protocolLastEventId(header: string | null): number {
	return header === '-1' ? 0 : parseLastEventId(header);
}

export const runPaths = (threadId: string, runId: string) => ({
	'Content-Location': `/threads/${threadId}/runs/${runId}`,
	Location: `/threads/${threadId}/runs/${runId}/stream`
});

export class ProtocolRuns {
	constructor(private readonly parts: ProtocolRunsParts) {}

	/** The thread's values as the protocol shows them: the active branch's messages and the waiting calls. */
	async values(threadId: string): Promise<ThreadValues> {
		const [messages, approvals] = await Promise.all([this.parts.threads.messages(threadId), this.parts.storage.approvals.pending(threadId)]);
		return threadValuesOf(toMessageDtos(messages), approvals);
	}

	/**
	 * Starts the run a body asks for on `threadId` (null: a thread of its own, the thread-less
	 * routes). Throws ApiError for a refusal: 404 unknown thread, 409 busy (reject) or a stale
	 * interrupt, 422 a body that means nothing here.
	 */
	async create(threadId: string | null, body: RunCreate): Promise<CreatedRun> {
		const { intent, options } = readRunCreate(body, this.parts.maxMessageChars);
		if (threadId === null && intent.kind !== 'message') {
			throw new ApiError('VALIDATION_FAILED', 'Invalid field "input": a run without a thread starts one, with a human message');
		}
		if (threadId !== null && !options.createThread && !(await this.parts.storage.conversations.exists(threadId))) {
			throw new ApiError('NOT_FOUND', 'Thread Not Found');
		}
		const runId = intent.kind === 'message' && intent.clientMessageId && threadId ? runIdOfMessage(threadId, intent.clientMessageId) : null;
		if (runId && threadId) {
			const again = await this.find(threadId, runId);
			if (again) return { run: again, options, threadId };
		}
		const request = threadId === null ? null : await this.requestOf(threadId, intent, options, runId);
		const start: StartRequest = request ?? { kind: 'message', conversation: null, message: (intent as { text: string }).text };
		const chosen = await this.parts.models.choose(start);
		if (isRefusal<StartRequest, ModelRefusal>(chosen)) throw this.parts.refusalError(chosen);
		const outcome = await this.parts.runService.start(chosen);
		if (isRefusal(outcome)) throw this.parts.refusalError(outcome);
		const started = outcome;
		const conversation = started.conversation;
		// What agent-chat-ui lists its threads by.
		await this.parts.storage.threads.mergeMetadata(conversation, { graph_id: GRAPH_ID, assistant_id: ASSISTANT_ID });
		const id = 'run' in started ? started.run : started.queued;
		const run = (await this.find(conversation, id)) ?? pendingRunOf(conversation, { id, createdAt: new Date().toISOString() });
		return { run: { ...run, multitask_strategy: options.multitask }, options, threadId: conversation };
	}

	private async requestOf(threadId: string, intent: RunIntent, options: RunOptions, runId: string | null): Promise<StartRequest> {
		const busy = { ifBusy: options.ifBusy };
		switch (intent.kind) {
			case 'message': {
				if (intent.checkpointId) {
					const editOf = await this.messageAfter(threadId, intent.checkpointId, 'human');
					return { kind: 'edit', conversation: threadId, editOf, message: intent.text, ...busy, ...(runId ? { runId } : {}) };
				}
				if (options.multitask === 'rollback') {
					const rolledBack = await this.rollbackTarget(threadId);
					if (rolledBack) return { kind: 'edit', conversation: threadId, editOf: rolledBack, message: intent.text, ...busy, ...(runId ? { runId } : {}) };
				}
				return {
					kind: 'message',
					conversation: threadId,
					message: intent.text,
					...busy,
					...(runId ? { runId } : {}),
					...(options.createThread ? { createIfMissing: true } : {})
				};
			}
			case 'no-input':
				if (intent.checkpointId) {
					const messageId = await this.messageAfter(threadId, intent.checkpointId, 'ai');
					return { kind: 'regenerate', conversation: threadId, messageId, ...busy };
				}
				return { kind: 'resume', conversation: threadId };
			case 'decide':
				return { kind: 'decide', conversation: threadId, decisions: await this.decisionsOf(threadId, intent.decisions, intent.interruptId) };
			case 'deny-all': {
				const pending = await this.parts.storage.approvals.pending(threadId);
				if (pending.length === 0) throw new ApiError('NOT_WAITING', 'This thread is not waiting for a decision');
				return { kind: 'decide', conversation: threadId, decisions: pending.map((p) => ({ toolCallId: p.toolCallId, action: 'deny', reason: intent.reason })) };
			}
		}
	}

	/**
	 * HITL decisions answer the interrupt's action requests by position, which are the waiting calls
	 * in the order they were asked about. A resume naming another interrupt than the thread's, or
	 * sent when none waits, is a 409 and changes nothing; RunService checks the decisions again in
	 * the commit that records them.
	 */
	private async decisionsOf(threadId: string, decisions: HitlDecision[], interruptId: string | null): Promise<Decision[]> {
		const pending = await this.parts.storage.approvals.pending(threadId);
		if (pending.length === 0) throw new ApiError('NOT_WAITING', 'This thread is not waiting for a decision');
		if (interruptId !== null && interruptId !== interruptIdOf(pending)) {
			throw new ApiError('NOT_WAITING', `The interrupt "${interruptId}" is not the one this thread waits on`);
		}
		if (decisions.length !== pending.length) {
			throw new ApiError('VALIDATION_FAILED', `Invalid field "command.resume.decisions": ${pending.length} calls wait, ${decisions.length} decisions given`);
		}
		return decisions.map((d, i): Decision => {
			const toolCallId = pending[i]!.toolCallId;
			if (d.type === 'approve') return { toolCallId, action: 'approve' };
			if (d.type === 'edit') return { toolCallId, action: 'edit', args: d.edited_action.args };
			return { toolCallId, action: 'deny', ...(d.message ? { reason: d.message } : {}) };
		});
	}

	/**
	 * The message a run from `checkpointId` replaces: the first the active branch shows after the
	 * messages of that checkpoint (a human one for an edit, the answer for a regenerate), as
	 * agent-chat-ui forks from the checkpoint before the message it edits or regenerates.
	 */
	private async messageAfter(threadId: string, checkpointId: string, type: 'human' | 'ai'): Promise<string> {
		if (!(await this.parts.branchReader.activePath(threadId)).includes(checkpointId)) {
			throw new ApiError('NOT_FOUND', `Checkpoint "${checkpointId}" is not on the thread's active branch`);
		}
		const at = await this.parts.branchReader.shownIdsAt(threadId, checkpointId);
		const shown = (await this.parts.threads.messages(threadId)).filter(isShownMessage);
		const next = shown[at.length];
		if (!next || at.some((id, i) => shown[i]?.id !== id) || next.getType() !== type) {
			throw new ApiError(
				'VALIDATION_FAILED',
				`Invalid field "checkpoint": the active branch shows no ${type === 'human' ? 'human message' : 'answer'} right after it`
			);
		}
		return next.id!;
	}

	/** `rollback`: the thread goes back to before its message run in flight, whose user message has the run's id. */
	private async rollbackTarget(threadId: string): Promise<string | null> {
		const latest = (await this.parts.storage.runs.list(threadId))[0];
		return latest?.status === 'running' && latest.trigger === 'message' ? latest.id : null;
	}

	/** The protocol run `runId` of the thread, pending ones (queued messages) included; null if none. */
	async find(threadId: string, runId: string): Promise<ProtocolRun | null> {
		// The queue first: a queued message leaves it in the commit that claims its run, so read in
		// this order a run is always in one of the two; read the other way, one that starts between
		// the reads is in neither.
		const queued = (await this.parts.storage.queue.list(threadId)).find((q) => q.id === runId);
		if (queued) return pendingRunOf(threadId, queued);
		const chain = chainOf(await this.parts.storage.runs.list(threadId), runId);
		return chain.length ? protocolRunOf(threadId, chain) : null;
	}

	/** GET /threads/:id/runs: newest first, pending first of all. */
	async list(threadId: string, limit: number, offset: number, status: string | null): Promise<ProtocolRun[]> {
		if (!(await this.parts.storage.conversations.exists(threadId))) throw new ApiError('NOT_FOUND', 'Thread Not Found');
		// In find's order; a message whose run started between the two reads is listed as the run.
		const waiting = await this.parts.storage.queue.list(threadId);
		const runs = await this.parts.storage.runs.list(threadId);
		const started = new Set(runs.map((r) => r.id));
		const queued = waiting.filter((q) => !started.has(q.id)).reverse().map((q) => pendingRunOf(threadId, q));
		const all = [...queued, ...protocolRunIds(runs).map((id) => protocolRunOf(threadId, chainOf(runs, id)))];
		return all.filter((r) => status === null || r.status === status).slice(offset, offset + limit);
	}

	async get(threadId: string, runId: string): Promise<ProtocolRun> {
		const run = await this.find(threadId, runId);
		if (!run) throw new ApiError('NOT_FOUND', 'Run Not Found');
		return run;
	}

	/** The Sophos run of the chain that is in flight now, if any. */
	private async liveMember(threadId: string, runId: string): Promise<{ chain: RunRecord[]; live: RunRecord | null }> {
		const chain = chainOf(await this.parts.storage.runs.list(threadId), runId);
		const last = chain.at(-1);
		return { chain, live: last?.status === 'running' ? last : null };
	}

	/**
	 * The protocol stream of a run: while it (or the resume carrying it on) is in flight, Sophos's
	 * stream of it translated; once it has ended, `metadata`, the thread's values and its error if it
	 * failed; for a pending run, `metadata` alone (the client asks again, as the SDK does, while the
	 * run's status is pending).
	 *
	 * `onDisconnect` "cancel": once this reader has left before the run's end and no other reader
	 * follows the run, the run is cancelled (RunService.cancelIfUnfollowed).
	 */
	async stream(
		threadId: string,
		runId: string,
		modes: RunOptions['streamModes'],
		after: number,
		signal: AbortSignal,
		onDisconnect: RunOptions['onDisconnect'] = 'continue'
	): Promise<Response> {
		const headers = runPaths(threadId, runId);
		const run = await this.get(threadId, runId);
		const { chain, live } = await this.liveMember(threadId, runId);
		const values = () => this.values(threadId);
		const translator = new RunStreamTranslator({ threadId, runId, attempt: Math.max(chain.length, 1), modes, after, values });
		if (live) {
			const reading = this.reading(live.id, signal, onDisconnect);
			// From Sophos's first event, whatever the client saw: the translator needs to know which answer the tokens after `after` belong to.
			const sophos = await this.parts.runService.follow(threadId, 0, reading.signal, this.parts.streamOptions);
			if (modes.includes('updates')) translator.knowFrom(await values());
			if (sophos instanceof Response) return protocolStreamResponse(sophos, translator, headers, reading.leave);
		}
		if (run.status === 'pending') return settledStreamResponse(translator, [], headers);
		return settledStreamResponse(translator, await this.finalFrames(threadId, chain, modes), headers);
	}

	/**
	 * One reader of Sophos's stream of `liveRunId`, and how it leaves: the client's going, told by
	 * the response's cancel or the request's signal, whichever comes first. Leaving detaches it from
	 * the run's log at once (aborting the signal its follow holds), so the count of readers it
	 * leaves behind is already right when on_disconnect "cancel" reads it, in the same turn.
	 */
	private reading(liveRunId: string, request: AbortSignal, onDisconnect: RunOptions['onDisconnect']) {
		const controller = new AbortController();
		const leave = () => {
			if (controller.signal.aborted) return;
			request.removeEventListener('abort', leave);
			controller.abort();
			if (onDisconnect !== 'cancel') return;
			this.parts.runService.cancelIfUnfollowed(liveRunId)?.catch((e) => this.parts.log(`Run ${liveRunId}: cancelling it as its last reader left failed`, e));
		};
		if (request.aborted) leave();
		else request.addEventListener('abort', leave);
		return { signal: controller.signal, leave };
	}

	private async finalFrames(threadId: string, chain: RunRecord[], modes: RunOptions['streamModes']): Promise<ProtocolFrame[]> {
		const frames: ProtocolFrame[] = [];
		if (modes.includes('values')) frames.push({ event: 'values', data: await this.values(threadId) });
		const error = chain.at(-1)?.status === 'failed' ? chain.at(-1)!.error : null;
		if (error) frames.push({ event: 'error', data: { error: error.code, message: error.message } });
		return frames;
	}

	/** Waits for the run's end (following it as a stream does, so across instances too) and answers its outcome. */
	async join(threadId: string, runId: string, signal: AbortSignal): Promise<unknown> {
		// A pending run waits for the thread's runs ahead of it: each is followed to its end in turn.
		while (!isFinished((await this.get(threadId, runId)).status)) {
			const sophos = await this.parts.runService.follow(threadId, 0, signal, this.parts.streamOptions);
			if (sophos instanceof Response) await sophos.body?.pipeTo(new WritableStream());
			signal.throwIfAborted();
		}
		const chain = chainOf(await this.parts.storage.runs.list(threadId), runId);
		const last = chain.at(-1);
		if (last?.status === 'failed' && last.error) return { __error__: { error: last.error.code, message: last.error.message } };
		return this.values(threadId);
	}

	/**
	 * Cancels a run: the one in flight in its chain, or a pending one (taken off the queue).
	 * `rollback` also moves the thread back to before the run, as a branch: the run's own branch
	 * stays, with the journal of what it did.
	 */
	async cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback', wait: boolean): Promise<void> {
		const run = await this.get(threadId, runId);
		if (run.status === 'pending') {
			await this.parts.storage.queue.delete(runId);
			return;
		}
		const { live, chain } = await this.liveMember(threadId, runId);
		if (action === 'rollback' && chain[0]?.trigger === 'message') {
			const from = await this.forkBefore(threadId, chain[0].id);
			if (live) await this.parts.runService.cancel(live.id);
			if (from) await this.switchTo(threadId, from);
			return;
		}
		if (!live) return;
		const cancelled = this.parts.runService.cancel(live.id);
		if (wait) await cancelled;
		else cancelled.catch((e) => this.parts.log(`Run ${live.id}: cancelling it failed`, e));
	}

	private async forkBefore(threadId: string, messageId: string): Promise<string | null> {
		const path = await this.parts.branchReader.activePath(threadId);
		for (let i = 0; i < path.length; i++) {
			if ((await this.parts.branchReader.shownIdsAt(threadId, path[i]!)).includes(messageId)) return i > 0 ? path[i - 1]! : null;
		}
		return null;
	}

	private async switchTo(threadId: string, checkpointId: string): Promise<void> {
		const shown = await this.parts.branchReader.shownIdsAt(threadId, checkpointId);
		const switched = await this.parts.storage.branches.switchTo(threadId, checkpointId, { messageCount: shown.length, updatedAt: undefined });
		if (switched !== 'switched') throw new ApiError('SESSION_IN_PROGRESS', 'The thread could not be rolled back: a run holds it');
	}

	/**
	 * POST …/runs/stream: starts the run and streams it from its first event. With on_disconnect
	 * "cancel", the run is cancelled once this reader has gone and no other one follows it.
	 */
	async createAndStream(threadId: string | null, body: RunCreate, signal: AbortSignal): Promise<Response> {
		const created = await this.create(threadId, body);
		const { run, options } = created;
		return this.stream(created.threadId, run.run_id, options.streamModes, 0, signal, options.onDisconnect);
	}

	/** POST …/runs/wait: starts the run and answers once it has ended, with the thread's values (or its error). */
	async createAndWait(threadId: string | null, body: RunCreate, signal: AbortSignal): Promise<{ result: unknown; headers: Record<string, string> }> {
		const created = await this.create(threadId, body);
		const result = await this.join(created.threadId, created.run.run_id, signal);
		return { result, headers: { 'Content-Location': runPaths(created.threadId, created.run.run_id)['Content-Location'] } };
	}
}
