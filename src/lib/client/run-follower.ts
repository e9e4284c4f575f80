/**
 * The chat page's followed run: one stream at a time, its events applied by id, stop (cancel, or
 * detach where the server cannot cancel), and what the page reads again when the run ends.
 */
import type { ChatContext } from './chat-context';
import { CANCELLED_MESSAGE, CANCELLING_MESSAGE, DETACHED_MESSAGE, type StopResult } from './chat-snapshot';
import { applyRunEvent, emptyLiveRun, type RunOutcome } from './live-run';
import type { OpenRunStream, RunStreamHandle } from './run-stream';
import { CancelResultSchema, isTerminal, type StreamEvent } from '../protocol';

const MODEL_CODES = new Set(['MODEL_UNREACHABLE', 'MODEL_UNAVAILABLE', 'MODEL_AUTH_FAILED', 'MODEL_RATE_LIMITED']);

export class RunFollower {
	private stream: RunStreamHandle | null = null;

	constructor(
		private readonly chat: ChatContext,
		private readonly openStream: OpenRunStream
	) {}

	/**
	 * Follows the conversation's run from its first event: the replay rebuilds the partial answer.
	 * `started`: the run this page just started, whose steps it gets even if it has ended meanwhile.
	 */
	attach(id: string, started?: string): void {
		const chat = this.chat;
		this.close();
		chat.nextEpoch();
		chat.set({ live: emptyLiveRun(), connection: 'connecting', resumable: false, approvals: [], elicitations: [], notice: null, error: null, lastRunUsage: null });
		if (chat.state.status !== 'streaming') chat.to('streaming');
		const handle: RunStreamHandle = this.openStream(id, {
			onEvent: (e) => this.stream === handle && this.onEvent(id, e),
			onOpen: () => this.stream === handle && chat.set({ connection: 'open' }),
			onReconnecting: () => this.stream === handle && chat.set({ connection: 'reconnecting' }),
			onFailed: () => {
				if (this.stream !== handle) return;
				this.close();
				chat.set({ connection: null, error: { code: 'SSE_ERROR', message: 'Connection to the run stream failed.' } });
				chat.to('idle');
			}
		}, started);
		this.stream = handle;
	}

	close(): void {
		this.stream?.close();
		this.stream = null;
	}

	/**
	 * Stop: asks the server to cancel the run (POST /api/runs/:id/cancel) and waits for its
	 * `cancelled` end. A server without that endpoint (404/405) cannot stop it, so the page detaches
	 * instead: it closes its stream and says the run goes on. Any other refusal keeps following.
	 */
	async stop(): Promise<StopResult> {
		const chat = this.chat;
		const id = chat.state.conversationId;
		if (chat.state.status !== 'streaming' || !id) return 'not-streaming';
		const epoch = chat.epoch;
		const stream = this.stream;
		chat.to('stopping');
		const stillStopping = () => epoch === chat.epoch && this.stream === stream && chat.state.status === 'stopping';
		let runId = chat.state.runId;
		if (!runId) {
			const runs = await chat.api.listRuns(id);
			runId = runs.ok ? (runs.value.find((r) => r.status === 'running')?.id ?? null) : null;
			if (!stillStopping()) return 'ended';
		}
		if (!runId) {
			this.detach();
			return 'detached';
		}
		let res = await chat.api.cancelRun(runId);
		if (!stillStopping()) return 'ended';
		const successor = res.ok ? await this.carriedOnBy(id, res.value) : null;
		if (!stillStopping()) return 'ended';
		if (successor) {
			chat.set({ runId: successor });
			res = await chat.api.cancelRun(successor);
			if (!stillStopping()) return 'ended';
		}
		if (res.ok) {
			chat.set({ notice: { kind: 'info', message: CANCELLING_MESSAGE } });
			return 'cancelling';
		}
		if (res.status === 404 || res.status === 405) {
			this.detach();
			return 'detached';
		}
		chat.set({ error: res.error });
		chat.to('streaming');
		return 'failed';
	}

	/**
	 * The run the stream went on with, when the cancelled one had been interrupted before it was
	 * asked: its owner died, and the run that resumed it (AUTO_RESUME) carries on the same stream.
	 */
	private async carriedOnBy(id: string, answer: unknown): Promise<string | null> {
		const cancelled = CancelResultSchema.safeParse(answer);
		if (!cancelled.success || cancelled.data.status !== 'interrupted') return null;
		const runs = await this.chat.api.listRuns(id);
		return (runs.ok && runs.value.find((r) => r.status === 'running')?.id) || null;
	}

	private detach(): void {
		this.close();
		this.chat.set({ connection: null, notice: { kind: 'detached', message: DETACHED_MESSAGE } });
		this.chat.to('idle');
		void this.chat.refreshList();
	}

	private onEvent(id: string, e: StreamEvent): void {
		const chat = this.chat;
		// The card can show at once; the detail read after `end` is what stays.
		if (e.event === 'approval' && e.data.conversation === id) chat.set({ approvals: e.data.approvals });
		// The stream replays from the run's first event, so its questions are rebuilt from it alone.
		if (e.event === 'elicitation' && e.data.conversation === id) chat.set({ elicitations: [...chat.state.elicitations.filter((q) => q.id !== e.data.elicitation.id), e.data.elicitation] });
		if (e.event === 'elicitation-closed') chat.set({ elicitations: chat.state.elicitations.filter((q) => q.id !== e.data.id) });
		if (isTerminal(e)) chat.set({ elicitations: [] });
		const before = chat.state.live ?? emptyLiveRun();
		const live = applyRunEvent(before, e);
		if (live === before) return;
		if (!isTerminal(e) || !live.outcome) {
			chat.set({ live, connection: 'open' });
			return;
		}
		this.close();
		chat.set({ live, connection: null });
		void this.finishRun(id, live.outcome);
	}

	/** After the terminal event: say how it ended, then replace the live transcript with the durable one. */
	private async finishRun(id: string, outcome: RunOutcome): Promise<void> {
		const chat = this.chat;
		const epoch = chat.epoch;
		chat.to('idle');
		if (outcome.kind === 'error') {
			chat.set({ error: { code: outcome.code, message: outcome.message } });
			if (MODEL_CODES.has(outcome.code)) void chat.checkReadiness();
		} else if (outcome.status === 'cancelled') {
			chat.set({ notice: { kind: 'cancelled', message: CANCELLED_MESSAGE } });
		}
		const storedError = outcome.kind === 'end' && outcome.status === 'failed';
		chat.set({ syncing: true });
		try {
			await Promise.all([chat.loadDetail(id, epoch, { storedError }), chat.refreshList(), this.loadRunUsage(id, epoch, outcome.run)]);
		} finally {
			chat.set({ syncing: false });
		}
	}

	/** The ended run's totals for the timeline (GET /api/conversations/:id/runs). */
	private async loadRunUsage(id: string, epoch: number, runId: string | undefined): Promise<void> {
		const res = await this.chat.api.listRuns(id);
		if (epoch !== this.chat.epoch || !res.ok) return;
		const run = res.value.find((r) => r.id === (runId ?? this.chat.state.runId)) ?? res.value[0];
		this.chat.set({ lastRunUsage: run?.usage ?? null });
	}
}
