import { randomUUID } from 'node:crypto';
import type { Decision, StartResult } from '../../protocol';
import { checkDecisions, type DecisionRefusal } from '../approvals/decision-check';
import type { Claim } from '../storage/run-storage';
import type { LiveResponseOptions } from '../stream/sse-response';
import type { UserInput } from './active-run';
import type { CarryOn } from './carried-stream';
import { LiveRuns, type FollowOptions } from './live-runs';
import { readThreadWork } from './read-thread-work';
import { RunLauncher, type RunLauncherParts } from './run-launcher';
import { QueuedStarts, type QueuedStartsParts } from './queued-starts';
import { claimRefusal, onBusy, planRun, runInputOf, type RunPlan } from './run-plan';
import type { RecoveredRun } from './run-recovery';
import { isRefusal, type RunRefusal } from './run-refusal';
import type { RunRegistry } from './run-registry';
import type { ClaimRequest, StartRequest } from './start-request';

/** A run started or a message queued, or the refusal the caller answers with. */
export type StartOutcome = StartResult | RunRefusal;

export type RunServiceParts = Omit<RunLauncherParts, 'ended'> & {
	forkPoint: QueuedStartsParts['forkPoint'];
	/** For a resume that `carriesOn` a run: keeps that run's end naming the resume, and gives the resume's first event id. */
	carryOn: CarryOn;
	/** MAX_CONCURRENT_RUNS, for the refusal: the storage counts claims against it. */
	maxConcurrentRuns: number;
};

const SHUTTING_DOWN = { refused: 'shutting-down' } as const;

/** Thrown inside the decisions' commit to undo its claim; caught at once and answered as its refusal. */
class DecisionsRefused extends Error {
	constructor(readonly refusal: DecisionRefusal) {
		super(refusal.refused);
	}
}

/**
 * The live run's owner: where a run starts (a message, a resume, decisions, an edit, a regenerate),
 * is followed and cancelled, and where the process stops them all. Every request that may start a
 * run goes through `claimOrQueue`, the one place that writes it.
 */
export class RunService {
	private readonly launcher: RunLauncher;
	private readonly live: LiveRuns;
	private readonly queued: QueuedStarts;
	private readonly afterRun: ((conversationId: string) => Promise<void>)[] = [];
	/** Conversations whose run is being cancelled for an `interrupt`: its slot goes to that message. */
	private readonly handingOver = new Set<string>();

	constructor(private readonly parts: RunServiceParts) {
		this.live = new LiveRuns(parts);
		this.launcher = new RunLauncher({ ...parts, ended: (id) => this.ended(id) });
		this.queued = new QueuedStarts({ ...parts, launcher: this.launcher });
	}

	/** This process's runs in flight, for tests and benches that await a run's end or read its log. */
	get registry(): RunRegistry {
		return this.parts.registry;
	}

	/** Told, in the order added, each time a run has ended and left the registry, before queued messages start. */
	afterEachRun(hook: (conversationId: string) => Promise<void>): void {
		this.afterRun.push(hook);
	}

	isActive(conversationId: string): Promise<boolean> {
		return this.live.isActive(conversationId);
	}

	follow(conversationId: string, lastEventId: number, signal: AbortSignal, options: (runId: string) => LiveResponseOptions, follow?: FollowOptions) {
		return this.live.follow(conversationId, lastEventId, signal, options, follow);
	}

	cancel(runId: string) {
		return this.live.cancel(runId);
	}

	/**
	 * on_disconnect "cancel": cancels a run this process executes once no reader follows it, here or
	 * on another instance (PostgreSQL), through `cancel` as any other. Called right after the leaving
	 * reader detached; whether one is left here is read again, in the turn that cancels, once the
	 * other instances' readers are known, so of readers leaving together exactly one cancels. A run
	 * already stopping or ended, still followed, or executed by another instance (its reader's
	 * follow asks the owner, SharedRuns.follow) is left alone (null).
	 */
	async cancelIfUnfollowed(runId: string): Promise<Awaited<ReturnType<LiveRuns['cancel']>> | null> {
		const unfollowed = () => this.parts.registry.getById(runId)?.unfollowed === true;
		if (!unfollowed()) return null;
		if (this.parts.shared && (await this.parts.shared.followedElsewhere(runId))) return null;
		if (!unfollowed()) return null;
		return this.live.cancel(runId);
	}

	cancelConversation(conversationId: string) {
		return this.live.cancelConversation(conversationId);
	}

	stopAll(drainMs: number): Promise<void> {
		return this.launcher.stopAll(drainMs);
	}

	/**
	 * Claims the conversation and starts the run in the background. The claim (a `running` row under
	 * a unique index) is one commit of the storage, so of two concurrent starts, in any process on the
	 * database, exactly one wins.
	 */
	async start(request: StartRequest): Promise<StartOutcome> {
		if (this.launcher.closing) return SHUTTING_DOWN;
		if (request.kind === 'message' && request.conversation === null) return this.startConversation(request.message, request.model, randomUUID(), request.runId);
		const conversation = request.conversation!;
		const exists = () => this.parts.storage.conversations.exists(conversation);
		// Decisions and a branch's start read the thread before they claim, so they ask first; a run
		// on the head learns from its claim whether the conversation exists (issue 26: a round trip
		// fewer on PostgreSQL).
		if (request.kind === 'decide') return (await exists()) ? this.decide(conversation, request.decisions) : this.missing(request, conversation);
		const claiming = { ...request, conversation } as ClaimRequest;
		const plan = planRun(claiming);
		if (plan.fork && !(await exists())) return this.missing(request, conversation);
		const started = await this.claimOrQueue(plan, claiming);
		return isRefusal(started) && started.refused === 'conversation-not-found' ? this.missing(request, conversation) : started;
	}

	/** A request for a conversation there is none of: a message that may create it does; the rest are refused. */
	private missing(request: StartRequest, conversation: string): Promise<StartOutcome> | RunRefusal {
		if (request.kind === 'message' && request.createIfMissing) return this.startConversation(request.message, request.model, conversation, request.runId);
		return { refused: 'conversation-not-found' };
	}

	/** A first message: the conversation and its run in one commit, both rolled back at the cap (there is no run to queue behind). */
	private async startConversation(message: string, model: string | undefined, conversation: string, chosenRunId?: string): Promise<StartOutcome> {
		const runId = chosenRunId ?? randomUUID();
		const now = this.parts.now();
		const created = await this.parts.storage.conversations.createWithRun(conversation, runId, message, now, model);
		if (created === 'full') return claimRefusal(created, this.parts.maxConcurrentRuns);
		await this.launcher.launch(conversation, runId, runInputOf(runId, message), now);
		return { conversation, run: runId };
	}

	/**
	 * The one path that writes a request for a run on an existing conversation. A branch first finds
	 * where it starts; then one commit claims the conversation (for a branch, moving its active
	 * branch's head there, so a crash at any later point leaves a run that resumes on the new branch:
	 * an edit's message is then a lost input, re-sent there). Refused, the busy rules (`onBusy`) say
	 * whether it queues, interrupts the run in flight, or is refused.
	 */
	private async claimOrQueue(plan: RunPlan, request: ClaimRequest): Promise<StartOutcome> {
		const { storage } = this.parts;
		const fork = plan.fork ? await this.parts.forkPoint(plan.conversation, plan.fork) : null;
		if (fork && isRefusal(fork)) return fork;
		if (this.launcher.closing) return SHUTTING_DOWN;
		const runId = ('runId' in request ? request.runId : undefined) ?? randomUUID();
		const now = this.parts.now();
		const also = { ...(fork ? { branchFrom: fork.from } : {}), ...(plan.claimModel ? { model: plan.claimModel } : {}) };
		const claim = await storage.runs.claim(plan.conversation, runId, now, plan.trigger, plan.input, also);
		if (claim === 'claimed') return this.launchClaimed(plan, request, runId, now);
		const runningHere = claim === 'busy' && plan.ifBusy === 'interrupt' && (await this.live.active(plan.conversation))?.here != null;
		const next = onBusy(claim, plan.ifBusy, runningHere, this.parts.maxConcurrentRuns);
		if (next === 'queue') {
			// Behind the conversation's run, or behind the cap: startWaiting starts it when there is room.
			const queued = runId;
			const added = await storage.queue.add(plan.conversation, queued, plan.input ?? '', now, { ...plan.queued, model: plan.claimModel });
			return added === 'queued' ? { conversation: plan.conversation, queued } : added;
		}
		return next === 'interrupt' ? this.interrupt(plan, request) : next;
	}

	private async launchClaimed(plan: RunPlan, request: ClaimRequest, runId: string, now: string): Promise<StartOutcome> {
		const { conversation } = plan;
		if (request.kind !== 'resume') {
			await this.launcher.launch(conversation, runId, runInputOf(runId, plan.input), now);
			return { conversation, run: runId };
		}
		const resumable = await this.checkResumable(conversation, runId);
		if (isRefusal(resumable)) return resumable;
		// A resume's model is set only once it is sure to go ahead, before its first step.
		if (request.model) await this.parts.storage.conversations.setModel(conversation, request.model);
		const firstEventId = request.carriesOn ? await this.carryOn(request.carriesOn, runId) : 1;
		await this.launcher.launch(conversation, runId, { kind: 'resume', lostInput: resumable.lostInput }, now, firstEventId);
		return { conversation, run: runId };
	}

	/** ifBusy "interrupt": cancels the conversation's run, then writes the request once more, in the slot it leaves. */
	private async interrupt(plan: RunPlan, request: ClaimRequest): Promise<StartOutcome> {
		this.handingOver.add(plan.conversation);
		try {
			await this.live.cancelConversation(plan.conversation);
			if (!(await this.parts.storage.conversations.exists(plan.conversation))) return { refused: 'conversation-not-found' };
			return await this.claimOrQueue({ ...plan, ifBusy: 'reject' }, request);
		} finally {
			this.handingOver.delete(plan.conversation);
			this.startWaiting().catch((e) => this.parts.log('Starting queued messages failed', e));
		}
	}

	/**
	 * Claims the run that carries out a person's decisions and records them, in one durable commit:
	 * a decision is kept before anything acts on it, and a refused submission changes nothing.
	 */
	private async decide(conversation: string, decisions: Decision[]): Promise<StartOutcome> {
		const runId = randomUUID();
		const now = this.parts.now();
		let claim: Claim;
		try {
			claim = await this.parts.storage.approvals.decideWithRun(conversation, runId, now, (pending) => {
				const checked = checkDecisions(pending, decisions);
				if (isRefusal(checked)) throw new DecisionsRefused(checked);
				return checked;
			});
		} catch (e) {
			if (e instanceof DecisionsRefused) return e.refusal;
			throw e;
		}
		if (claim !== 'claimed') return claimRefusal(claim, this.parts.maxConcurrentRuns);
		for (const d of decisions) this.parts.telemetry?.approval(d.action);
		this.parts.crash('after-decision');
		await this.launcher.launch(conversation, runId, { kind: 'decided' }, now);
		return { conversation, run: runId };
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

	/** What a claimed resume sends; the claim is released when there is nothing to resume. */
	private async checkResumable(conversation: string, runId: string): Promise<{ lostInput: UserInput | null } | RunRefusal> {
		let refusal: RunRefusal;
		try {
			const work = await readThreadWork(this.parts, conversation);
			if (this.launcher.closing) refusal = SHUTTING_DOWN;
			else if (work.kind === 'finished') refusal = { refused: 'nothing-to-resume' };
			else if (work.kind === 'waiting') refusal = { refused: 'approval-required' };
			else return { lostInput: work.lostInput };
		} catch (e) {
			await this.parts.storage.runs.releaseClaim(runId);
			throw e;
		}
		await this.parts.storage.runs.releaseClaim(runId);
		return refusal;
	}

	private async ended(conversationId: string): Promise<void> {
		try {
			for (const hook of this.afterRun) await hook(conversationId);
		} finally {
			if (!this.handingOver.has(conversationId)) await this.startWaiting().catch((e) => this.parts.log('Starting queued messages failed', e));
		}
	}

	/** Starts queued messages while there is room (queued-starts.ts); called at start and whenever a run ends. */
	startWaiting(): Promise<void> {
		return this.queued.startWaiting();
	}
}
