import { randomUUID } from 'node:crypto';
import type { ThreadReader } from '../agent/thread-reader';
import type { ConversationStore } from '../db/conversation-store';
import type { RunStore } from '../db/run-store';
import { SophosError } from '../errors';
import { ActiveRun, type RunInput, RunRegistry } from './active-run';
import { executeRun, type ExecutorParts } from './run-executor';

export type StartRequest =
	| { kind: 'message'; conversation: string | null; message: string }
	| { kind: 'resume'; conversation: string };

export type RunServiceParts = ExecutorParts & {
	conversations: ConversationStore;
	threads: ThreadReader;
	bufferLimit: number;
};

/** Where a run starts, and where the process stops them all. */
export class RunService {
	readonly registry = new RunRegistry();
	private closing = false;

	constructor(private readonly parts: RunServiceParts) {}

	get isClosing(): boolean {
		return this.closing;
	}

	/**
	 * Claims the conversation and starts the run in the background. The claim (a `running` row under
	 * a unique index) happens before any await, so of two concurrent starts exactly one wins.
	 */
	async start(request: StartRequest): Promise<{ conversation: string; run: string }> {
		this.refuseIfClosing();
		const { conversations, runs, threads } = this.parts;
		const runId = randomUUID();
		const now = this.parts.now();
		let conversationId: string;
		if (request.kind === 'message' && request.conversation === null) {
			conversationId = randomUUID();
			conversations.transaction(() => {
				conversations.create(conversationId, request.message, now);
				runs.claim(conversationId, runId, now);
			});
		} else {
			conversationId = request.conversation!;
			if (!conversations.exists(conversationId)) throw new SophosError('NOT_FOUND', 'Conversation Not Found');
			if (!runs.claim(conversationId, runId, now)) {
				throw new SophosError('SESSION_IN_PROGRESS', 'Previous request still in progress');
			}
		}
		if (request.kind === 'resume') await this.checkResumable(conversationId, runId);
		runs.touchConversation(conversationId, now);

		const input: RunInput = request.kind === 'message' ? { kind: 'message', message: request.message } : { kind: 'resume' };
		const run = new ActiveRun(runId, conversationId, this.parts.bufferLimit);
		this.registry.add(run);
		run.done = executeRun(run, input, this.parts).finally(() => this.registry.remove(run));
		return { conversation: conversationId, run: runId };
	}

	/** Stops every run, waits until each has recorded its outcome, then refuses new ones for good. */
	async stopAll(): Promise<void> {
		this.closing = true;
		const active = this.registry.all();
		for (const run of active) run.stop('shutdown');
		await Promise.all(active.map((run) => run.done));
	}

	private async checkResumable(conversationId: string, runId: string): Promise<void> {
		let next: string[];
		try {
			next = (await this.parts.threads.state(conversationId)).next;
			this.refuseIfClosing();
		} catch (e) {
			this.parts.runs.releaseClaim(runId);
			throw e;
		}
		if (next.length === 0) {
			this.parts.runs.releaseClaim(runId);
			throw new SophosError('RUN_NOT_RESUMABLE', 'Nothing to resume: the last run finished');
		}
	}

	private refuseIfClosing(): void {
		if (this.closing) throw new SophosError('SHUTTING_DOWN', 'The service is shutting down; try again shortly.');
	}
}
