import { randomUUID } from 'node:crypto';
import type { CancelResult, Decision, RunTrigger, StartResult } from '../../protocol';
import { checkDecisions } from '../approvals/decision-check';
import type { ForkTarget } from './fork-point';
import { ApiError } from '../errors';
import type { Claim } from '../storage/app-storage';
import { ActiveRun, type RunInput, type UserInput } from './active-run';
import type { CarryOn } from './carried-stream';
import { readThreadWork } from './read-thread-work';
import type { RecoveredRun } from './run-recovery';
import type { RunRegistry } from './run-registry';
import { executeRun, type ExecutorParts } from './run-executor';
import type { SharedRuns } from '../storage/storage-engine';

export type IfBusy = 'reject' | 'enqueue' | 'interrupt';

/** A run that sends `message` (an edit's new text too), or with none a regenerate: the head's pending step runs. */
const runInputOf = (runId: string, message: string | null): RunInput =>
	message === null ? { kind: 'regenerate' } : { kind: 'message', input: { id: runId, message } };

/** `model`: the `<provider>/<model>` the conversation answers with from this run on, checked by the caller. */
export type StartRequest =
	| { kind: 'message'; conversation: string | null; message: string; ifBusy?: IfBusy; model?: string }
	| {
			kind: 'resume';
			conversation: string;
			trigger?: Extract<RunTrigger, 'resume' | 'auto-resume'>;
			model?: string;
			/** The run whose owner died that this one resumes (auto-resume): its readers carry on with this one. */
			carriesOn?: RecoveredRun;
	  }
	| { kind: 'decide'; conversation: string; decisions: Decision[] }
	| BranchRequest;

/** A run that starts a new branch: an edit of a user message, or a regenerate of an answer. */
export type BranchRequest =
	| { kind: 'edit'; conversation: string; editOf: string; message: string; ifBusy?: IfBusy; model?: string }
	| { kind: 'regenerate'; conversation: string; messageId: string; ifBusy?: IfBusy; model?: string };

export type RunServiceParts = ExecutorParts & {
	/** Told when a run has ended and left the registry (retention prunes here); errors are logged. */
	afterRun: (conversationId: string) => Promise<void>;
	registry: RunRegistry;
	/** Runs other instances follow and cancel (PostgreSQL); null on one process. */
	shared: SharedRuns | null;
	/** Where a branch replacing the target starts (runs/fork-point.ts); refuses with an ApiError. */
	forkPoint: (conversationId: string, target: ForkTarget) => Promise<string>;
	/** For a resume that `carriesOn` a run: keeps that run's end naming the resume, and gives the resume's first event id. */
	carryOn: CarryOn;
	bufferLimit: number;
	/** MAX_CONCURRENT_RUNS, for the refusal's message: the storage counts claims against it. */
	maxConcurrentRuns: number;
};

const forkTarget = (r: BranchRequest): ForkTarget =>
	r.kind === 'edit' ? { kind: 'edit', messageId: r.editOf } : { kind: 'regenerate', messageId: r.messageId };

/** The branch a queued edit or regenerate starts, if it is one. */
const queuedTarget = (q: { editOf?: string; regenerate?: string }): ForkTarget | null =>
	q.editOf ? { kind: 'edit', messageId: q.editOf } : q.regenerate ? { kind: 'regenerate', messageId: q.regenerate } : null;

/** Where a run starts, is cancelled, and where the process stops them all. */
export class RunService {
	private closing = false;
	private stopped: Promise<void> | null = null;
	/** Conversations whose run is being cancelled for an `interrupt`: its slot goes to that message. */
	private readonly handingOver = new Set<string>();

	constructor(private readonly parts: RunServiceParts) {}

	get registry(): RunRegistry {
		return this.parts.registry;
	}

	/**
	 * Claims the conversation and starts the run in the background. The claim (a `running` row under
	 * a unique index) is one commit of the storage, so of two concurrent starts, in any process on the
	 * database, exactly one wins.
	 */
	async start(request: StartRequest): Promise<StartResult> {
		this.refuseIfClosing();
		if (request.kind === 'edit' || request.kind === 'regenerate') return this.startBranch(request);
		const { conversations, queue, runs } = this.parts.storage;
		const runId = randomUUID();
		const now = this.parts.now();
		if (request.kind === 'message' && request.conversation === null) {
			const conversationId = randomUUID();
			// Refused at the cap, rolling the new conversation back with it: there is no run to queue behind.
			if ((await conversations.createWithRun(conversationId, runId, request.message, now, request.model)) === 'full') {
				throw this.tooManyRuns();
			}
			return this.launch(conversationId, runId, { kind: 'message', input: { id: runId, message: request.message } }, now);
		}
		const conversationId = request.conversation!;
		if (!(await conversations.exists(conversationId))) throw new ApiError('NOT_FOUND', 'Conversation Not Found');
		if (request.kind === 'decide') return this.decide(conversationId, runId, request.decisions, now);
		const trigger = request.kind === 'resume' ? (request.trigger ?? 'resume') : 'message';
		const message = request.kind === 'message' ? request.message : null;
		const model = request.kind === 'message' ? request.model : undefined;
		const claim = await runs.claim(conversationId, runId, now, trigger, message, model ? { model } : undefined);
		if (claim !== 'claimed') {
			// Queued behind the conversation's run, or behind the cap: startWaiting starts it when there is room.
			if (request.kind === 'message' && request.ifBusy === 'enqueue') {
				const queued = randomUUID();
				await queue.add(conversationId, queued, request.message, now, { model: request.model });
				return { conversation: conversationId, queued };
			}
			if (claim === 'full') throw this.tooManyRuns();
			if (request.kind === 'message' && request.ifBusy === 'interrupt' && this.registry.get(conversationId)) {
				return this.interrupt(conversationId, request);
			}
			throw new ApiError('SESSION_IN_PROGRESS', 'Previous request still in progress');
		}
		if (request.kind === 'message') return this.launch(conversationId, runId, { kind: 'message', input: { id: runId, message: request.message } }, now);
		const input: RunInput = { kind: 'resume', lostInput: await this.checkResumable(conversationId, runId) };
		// A resume's model is set only once it is sure to go ahead, before its first step.
		if (request.model) await conversations.setModel(conversationId, request.model);
		const firstEventId = request.carriesOn ? await this.carryOn(request.carriesOn, runId) : 1;
		return this.launch(conversationId, runId, input, now, firstEventId);
	}

	/** The resumed run's first event id, once the run it carries on names it; the claim is released if that fails. */
	private async carryOn(run: RecoveredRun, runId: string): Promise<number> {
		try {
			return await this.parts.carryOn(run, runId);
		} catch (e) {
			await this.parts.storage.runs.releaseClaim(runId);
			throw e;
		}
	}

	/**
	 * An edit or a regenerate: finds where its branch starts, then, in one commit, claims the
	 * conversation and moves its active branch's head there, so a crash at any later point leaves a
	 * run that resumes on the new branch (an edit's message is then a lost input, re-sent there).
	 * A busy conversation, or a full service, gets the busy rules of any message.
	 */
	private async startBranch(request: BranchRequest): Promise<StartResult> {
		const { conversations, queue, runs } = this.parts.storage;
		const conversationId = request.conversation;
		if (!(await conversations.exists(conversationId))) throw new ApiError('NOT_FOUND', 'Conversation Not Found');
		const from = await this.parts.forkPoint(conversationId, forkTarget(request));
		this.refuseIfClosing();
		const runId = randomUUID();
		const now = this.parts.now();
		const message = request.kind === 'edit' ? request.message : null;
		const claim = await runs.claim(conversationId, runId, now, request.kind, message, { branchFrom: from, model: request.model });
		if (claim === 'claimed') return this.launch(conversationId, runId, runInputOf(runId, message), now);
		if (request.ifBusy === 'enqueue') {
			const queued = randomUUID();
			const what = request.kind === 'edit' ? { editOf: request.editOf } : { regenerate: request.messageId };
			await queue.add(conversationId, queued, message ?? '', now, { ...what, model: request.model });
			return { conversation: conversationId, queued };
		}
		if (claim === 'full') throw this.tooManyRuns();
		if (request.ifBusy === 'interrupt' && this.registry.get(conversationId)) return this.interrupt(conversationId, request);
		throw new ApiError('SESSION_IN_PROGRESS', 'Previous request still in progress');
	}

	/** ifBusy "interrupt": cancels the conversation's run, then starts `request` in the slot it leaves. */
	private async interrupt(conversationId: string, request: Extract<StartRequest, { ifBusy?: IfBusy }>): Promise<StartResult> {
		this.handingOver.add(conversationId);
		try {
			await this.cancelConversation(conversationId);
			return await this.start({ ...request, ifBusy: 'reject' });
		} finally {
			this.handingOver.delete(conversationId);
			this.startWaitingLogged();
		}
	}

	/** Cancels a run: harmless when it has already ended, and its one recorded outcome is returned. */
	async cancel(runId: string): Promise<CancelResult> {
		const active = this.registry.getById(runId);
		if (active) {
			active.abort('cancel');
			await active.done;
		} else if (this.parts.shared && (await this.parts.storage.runs.get(runId))?.status === 'running') {
			// Another instance executes it: the request reaches it there, and is answered once its outcome is recorded.
			await this.parts.shared.cancel(runId);
		}
		const record = await this.parts.storage.runs.get(runId);
		if (!record) throw new ApiError('NOT_FOUND', 'Run Not Found');
		return { conversation: record.conversationId, run: runId, status: record.status };
	}

	/** Cancels the conversation's active run, if any; answers with its latest run either way. */
	async cancelConversation(conversationId: string): Promise<CancelResult> {
		const active = this.registry.get(conversationId);
		if (active) return this.cancel(active.id);
		const latest = (await this.parts.storage.runs.list(conversationId))[0];
		if (latest?.status === 'running' && this.parts.shared) return this.cancel(latest.id);
		return { conversation: conversationId, run: latest?.id ?? null, status: latest?.status ?? null };
	}

	/**
	 * Drain, once however often it is called: refuses new runs, lets runs in flight reach their
	 * next step boundary for up to `drainMs`, then aborts the rest; resolves once every run has
	 * recorded its outcome.
	 */
	stopAll(drainMs: number): Promise<void> {
		this.stopped ??= this.drain(drainMs);
		return this.stopped;
	}

	private async drain(drainMs: number): Promise<void> {
		this.closing = true;
		const active = this.registry.all();
		for (const run of active) run.requestStop('shutdown');
		const settled = Promise.all(active.map((run) => run.done));
		let timer: NodeJS.Timeout | undefined;
		const deadline = new Promise<void>((resolve) => (timer = setTimeout(resolve, drainMs)));
		await Promise.race([settled, deadline]);
		clearTimeout(timer);
		for (const run of active) run.abort('shutdown');
		await settled;
	}

	/**
	 * Starts queued messages, the conversation waiting longest first, one per idle conversation,
	 * while MAX_CONCURRENT_RUNS leaves room; called at start and whenever a run ends. Resolves once
	 * each has started or been left waiting.
	 */
	async startWaiting(): Promise<void> {
		if (this.closing) return;
		for (const id of await this.parts.storage.queue.conversationsWaiting()) {
			if ((await this.startQueued(id)) === 'full') return;
		}
	}

	private startWaitingLogged(): void {
		this.startWaiting().catch((e) => this.parts.log('Starting queued messages failed', e));
	}

	/**
	 * Starts the oldest queued message of an idle conversation; nothing if busy, full or nothing waits.
	 * A queued edit or regenerate first finds where its branch starts: one whose message is no longer
	 * on the active branch (or whose starting checkpoint was pruned) is dropped with a log line, and
	 * the next one is tried.
	 */
	private async startQueued(conversationId: string): Promise<Claim | null> {
		const { queue } = this.parts.storage;
		const next = (await queue.list(conversationId))[0];
		if (!next) return null;
		const target = queuedTarget(next);
		let from: string | null = null;
		if (target) {
			try {
				from = await this.parts.forkPoint(conversationId, target);
			} catch (e) {
				if (!(e instanceof ApiError)) throw e;
				this.parts.log(`Queued ${target.kind} ${next.id} dropped: ${e.message}`);
				await queue.delete(next.id);
				return this.startQueued(conversationId);
			}
			if (this.closing) return null;
		}
		const runId = randomUUID();
		const now = this.parts.now();
		const message = target?.kind === 'regenerate' ? null : next.message;
		const claim = await queue.claimQueued(conversationId, next.id, {
			runId,
			now,
			trigger: target?.kind ?? 'message',
			input: message,
			...(from ? { branchFrom: from } : {}),
			...(next.model ? { model: next.model } : {})
		});
		if (claim === 'claimed') await this.launch(conversationId, runId, runInputOf(runId, message), now);
		return claim;
	}

	private tooManyRuns(): ApiError {
		return new ApiError(
			'TOO_MANY_RUNS',
			`${this.parts.maxConcurrentRuns} runs are running (MAX_CONCURRENT_RUNS): try again when one ends, ` +
				'or send the message with ifBusy "enqueue" to queue it on its conversation'
		);
	}

	private async launch(conversationId: string, runId: string, input: RunInput, now: string, firstEventId = 1): Promise<StartResult> {
		this.parts.crash('after-run-insert');
		if (input.kind !== 'message') await this.parts.storage.runs.touchConversation(conversationId, now);
		const run = new ActiveRun(runId, conversationId, this.parts.bufferLimit, firstEventId);
		const detach = this.parts.shared?.attach({ id: runId, log: run.log, abort: () => run.abort('cancel') });
		this.registry.add(run);
		run.done = executeRun(run, input, this.parts).finally(async () => {
			this.registry.remove(run);
			await detach?.().catch((e) => this.parts.log(`Run ${runId}: keeping its events failed`, e));
			await this.parts.afterRun(conversationId).catch((e) => this.parts.log(`After run ${runId}`, e));
			if (!this.handingOver.has(conversationId)) await this.startWaiting().catch((e) => this.parts.log('Starting queued messages failed', e));
		});
		return { conversation: conversationId, run: runId };
	}

	/**
	 * Claims the run that carries out a person's decisions and records them, in one durable commit:
	 * a decision is kept before anything acts on it, and a refused submission changes nothing.
	 */
	private async decide(conversationId: string, runId: string, decisions: Decision[], now: string): Promise<StartResult> {
		const claim = await this.parts.storage.approvals.decideWithRun(conversationId, runId, now, (pending) =>
			checkDecisions(pending, decisions)
		);
		if (claim === 'full') throw this.tooManyRuns();
		if (claim === 'busy') throw new ApiError('SESSION_IN_PROGRESS', 'Previous request still in progress');
		for (const d of decisions) this.parts.telemetry?.approval(d.action);
		this.parts.crash('after-decision');
		return this.launch(conversationId, runId, { kind: 'decided' }, now);
	}

	/** Releases the claim and refuses when there is nothing to resume. */
	private async checkResumable(conversationId: string, runId: string): Promise<UserInput | null> {
		try {
			const work = await readThreadWork(this.parts, conversationId);
			this.refuseIfClosing();
			if (work.kind === 'finished') throw new ApiError('RUN_NOT_RESUMABLE', 'Nothing to resume: the last run finished');
			if (work.kind === 'waiting') {
				throw new ApiError('APPROVAL_REQUIRED', 'This conversation waits for a decision on its tool calls: send "decisions"');
			}
			return work.lostInput;
		} catch (e) {
			await this.parts.storage.runs.releaseClaim(runId);
			throw e;
		}
	}

	private refuseIfClosing(): void {
		if (this.closing) throw new ApiError('SHUTTING_DOWN', 'The service is shutting down; try again shortly.');
	}
}
