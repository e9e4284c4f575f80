/**
 * Runs of the LangGraph Agent Server protocol over Sophos's own: every run starts through
 * RunService (the one way into a run), is followed through Sophos's stream of it, and is read from
 * the run ledger. What is added here is the protocol's view: its run ids across resumes, its
 * statuses and its stream. Refusals come back as values (ProtocolRefusal, and the run core's own)
 * for the route to answer.
 */
import type { RunRecord } from '../../protocol';
import { toMessageDtos } from '../agent/messages';
import type { BranchReader } from '../branches/branch-reader';
import type { ModelCatalog, ModelRefusal } from '../models/model-catalog';
import { isRefusal, type RunRefusal } from '../runs/run-refusal';
import type { RunService } from '../runs/run-service';
import type { StartRequest } from '../runs/start-request';
import type { ThreadReader } from '../runs/thread-reader';
import type { AppStorage } from '../storage/app-storage';
import type { LiveResponseOptions } from '../stream/sse-response';
import { ASSISTANT_ID, GRAPH_ID } from './assistant';
import type { ThreadValues } from './protocol-dtos';
import type { ProtocolRefusal } from './protocol-refusal';
import type { RunOptions, RunRequest } from './run-create';
import { runIdOfMessage } from './run-id-of-message';
import {
	protocolStreamResponse,
	RunStreamTranslator,
	settledStreamResponse,
	type ProtocolFrame
} from './run-stream';
import { chainOf, isFinished, pendingRunOf, protocolRunIds, protocolRunOf, runPaths, type ProtocolRun } from './run-view';
import { startRequestOf } from './start-request-of';
import { threadValuesOf } from './thread-values';

export type ProtocolRunsParts = {
	runService: RunService;
	storage: Pick<AppStorage, 'runs' | 'queue' | 'conversations' | 'approvals' | 'branches' | 'threads'>;
	threads: ThreadReader;
	branchReader: BranchReader;
	models: Pick<ModelCatalog, 'choose'>;
	/** Sophos's own stream options for a run (MAX_STREAMS_PER_RUN, the reader backlog, the metrics). */
	streamOptions: (runId: string) => LiveResponseOptions;
	log: (line: string, error?: unknown) => void;
};

/** Every refusal a protocol run meets: the protocol's own, the run core's, a model choice's. */
export type ProtocolRunRefusal = ProtocolRefusal | RunRefusal | ModelRefusal;

/** A run created: its protocol view, and where its stream is. */
export type CreatedRun = { run: ProtocolRun; options: RunOptions; threadId: string };

/** What joining a run answers: the thread's values, or the error of a run that failed. */
export type JoinedRun = ThreadValues | { __error__: { error: string; message: string } };

export class ProtocolRuns {
	constructor(private readonly parts: ProtocolRunsParts) {}

	/** The thread's values as the protocol shows them: the active branch's messages and the waiting calls. */
	async values(threadId: string): Promise<ThreadValues> {
		const [messages, approvals] = await Promise.all([this.parts.threads.messages(threadId), this.parts.storage.approvals.pending(threadId)]);
		return threadValuesOf(toMessageDtos(messages), approvals);
	}

	/**
	 * Starts the run a request asks for on `threadId` (null: a thread of its own, the thread-less
	 * routes, whose request parseRunRequest checked has a message). Refused: an unknown thread, a
	 * busy one (reject), a stale interrupt, a checkpoint that starts nothing.
	 */
	async create(threadId: string | null, { intent, options }: RunRequest): Promise<CreatedRun | ProtocolRunRefusal> {
		if (threadId !== null && !options.createThread && !(await this.parts.storage.conversations.exists(threadId))) {
			return { refused: 'thread-not-found' };
		}
		const runId = intent.kind === 'message' && intent.clientMessageId && threadId ? runIdOfMessage(threadId, intent.clientMessageId) : null;
		if (runId && threadId) {
			const again = await this.find(threadId, runId);
			if (again) return { run: again, options, threadId };
		}
		const request = threadId === null ? null : await startRequestOf(this.parts, threadId, intent, options, runId);
		if (request && isRefusal<StartRequest, ProtocolRefusal>(request)) return request;
		const start: StartRequest = request ?? { kind: 'message', conversation: null, message: (intent as { text: string }).text };
		const chosen = await this.parts.models.choose(start);
		if (isRefusal<StartRequest, ModelRefusal>(chosen)) return chosen;
		const started = await this.parts.runService.start(chosen);
		if (isRefusal(started)) return started;
		const conversation = started.conversation;
		// What agent-chat-ui lists its threads by.
		await this.parts.storage.threads.mergeMetadata(conversation, { graph_id: GRAPH_ID, assistant_id: ASSISTANT_ID });
		const id = 'run' in started ? started.run : started.queued;
		const run = (await this.find(conversation, id)) ?? pendingRunOf(conversation, { id, createdAt: new Date().toISOString() });
		return { run: { ...run, multitask_strategy: options.multitask }, options, threadId: conversation };
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
	async list(threadId: string, limit: number, offset: number, status: string | null): Promise<ProtocolRun[] | ProtocolRefusal> {
		if (!(await this.parts.storage.conversations.exists(threadId))) return { refused: 'thread-not-found' };
		// In find's order; a message whose run started between the two reads is listed as the run.
		const waiting = await this.parts.storage.queue.list(threadId);
		const runs = await this.parts.storage.runs.list(threadId);
		const started = new Set(runs.map((r) => r.id));
		const queued = waiting.filter((q) => !started.has(q.id)).reverse().map((q) => pendingRunOf(threadId, q));
		const all = [...queued, ...protocolRunIds(runs).map((id) => protocolRunOf(threadId, chainOf(runs, id)))];
		return all.filter((r) => status === null || r.status === status).slice(offset, offset + limit);
	}

	async get(threadId: string, runId: string): Promise<ProtocolRun | RunRefusal> {
		return (await this.find(threadId, runId)) ?? { refused: 'run-not-found' };
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
	 * follows the run on any instance, the run is cancelled: by RunService.cancelIfUnfollowed when
	 * this process executes it, else by its owner, asked as this reader leaves (SharedRuns.follow).
	 */
	async stream(
		threadId: string,
		runId: string,
		modes: RunOptions['streamModes'],
		after: number,
		signal: AbortSignal,
		onDisconnect: RunOptions['onDisconnect'] = 'continue'
	): Promise<Response | RunRefusal> {
		const headers = runPaths(threadId, runId);
		const run = await this.get(threadId, runId);
		if (isRefusal(run)) return run;
		const { chain, live } = await this.liveMember(threadId, runId);
		const values = () => this.values(threadId);
		const translator = new RunStreamTranslator({ threadId, runId, attempt: Math.max(chain.length, 1), modes, after, values });
		if (live) {
			const reading = this.reading(live.id, signal, onDisconnect);
			// From Sophos's first event, whatever the client saw: the translator needs to know which answer the tokens after `after` belong to.
			const sophos = await this.parts.runService.follow(threadId, 0, reading.signal, this.parts.streamOptions, { cancelOnLeave: onDisconnect === 'cancel' });
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
			this.parts.runService.cancelIfUnfollowed(liveRunId).catch((e) => this.parts.log(`Run ${liveRunId}: cancelling it as its last reader left failed`, e));
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
	async join(threadId: string, runId: string, signal: AbortSignal): Promise<JoinedRun | RunRefusal> {
		// A pending run waits for the thread's runs ahead of it: each is followed to its end in turn.
		for (;;) {
			const run = await this.get(threadId, runId);
			if (isRefusal(run)) return run;
			if (isFinished(run.status)) break;
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
	 * stays, with the journal of what it did. Answers the run as it was when asked.
	 */
	async cancel(threadId: string, runId: string, action: 'interrupt' | 'rollback', wait: boolean): Promise<ProtocolRun | ProtocolRunRefusal> {
		const run = await this.get(threadId, runId);
		if (isRefusal(run)) return run;
		if (run.status === 'pending') {
			await this.parts.storage.queue.delete(runId);
			return run;
		}
		const { live, chain } = await this.liveMember(threadId, runId);
		if (action === 'rollback' && chain[0]?.trigger === 'message') {
			const from = await this.forkBefore(threadId, chain[0].id);
			if (live) await this.parts.runService.cancel(live.id);
			const held = from ? await this.switchTo(threadId, from) : null;
			return held ?? run;
		}
		if (!live) return run;
		const cancelled = this.parts.runService.cancel(live.id);
		if (wait) await cancelled;
		else cancelled.catch((e) => this.parts.log(`Run ${live.id}: cancelling it failed`, e));
		return run;
	}

	private async forkBefore(threadId: string, messageId: string): Promise<string | null> {
		const path = await this.parts.branchReader.activePath(threadId);
		for (let i = 0; i < path.length; i++) {
			if ((await this.parts.branchReader.shownIdsAt(threadId, path[i]!)).includes(messageId)) return i > 0 ? path[i - 1]! : null;
		}
		return null;
	}

	private async switchTo(threadId: string, checkpointId: string): Promise<ProtocolRefusal | null> {
		const shown = await this.parts.branchReader.shownIdsAt(threadId, checkpointId);
		const switched = await this.parts.storage.branches.switchTo(threadId, checkpointId, { messageCount: shown.length, updatedAt: undefined });
		return switched === 'switched' ? null : { refused: 'rollback-held' };
	}

	/**
	 * POST …/runs/stream: starts the run and streams it from its first event. With on_disconnect
	 * "cancel", the run is cancelled once this reader has gone and no other one follows it.
	 */
	async createAndStream(threadId: string | null, request: RunRequest, signal: AbortSignal): Promise<Response | ProtocolRunRefusal> {
		const created = await this.create(threadId, request);
		if (isRefusal<CreatedRun, ProtocolRunRefusal>(created)) return created;
		const { run, options } = created;
		return this.stream(created.threadId, run.run_id, options.streamModes, 0, signal, options.onDisconnect);
	}

	/** POST …/runs/wait: starts the run and answers once it has ended, with the thread's values (or its error). */
	async createAndWait(
		threadId: string | null,
		request: RunRequest,
		signal: AbortSignal
	): Promise<{ result: JoinedRun; headers: Record<string, string> } | ProtocolRunRefusal> {
		const created = await this.create(threadId, request);
		if (isRefusal<CreatedRun, ProtocolRunRefusal>(created)) return created;
		const result = await this.join(created.threadId, created.run.run_id, signal);
		if (isRefusal<JoinedRun, RunRefusal>(result)) return result;
		return { result, headers: { 'Content-Location': runPaths(created.threadId, created.run.run_id)['Content-Location'] } };
	}
}
