/**
 * The chat page's state machine, free of any framework: conversations, the open conversation's
 * durable messages, the run being followed (applied event by event, by id), stop, resume and
 * delete. It talks to the server only through `ChatApi` and `OpenRunStream`, so tests drive it
 * with fakes and no browser. Listeners get a fresh immutable snapshot after every change.
 *
 * Navigation (select, new chat) and every newly followed run bump an epoch; an answer that arrives
 * for an older epoch is dropped, so a slow response never paints one conversation's messages into
 * another, nor a finished run's reload over the next run's first message.
 */
import type { ChatApi } from './chat-api';
import {
	CANCELLED_MESSAGE,
	CANCELLING_MESSAGE,
	DETACHED_MESSAGE,
	INITIAL_SNAPSHOT,
	IN_PROGRESS_MESSAGE,
	currentSummary,
	type ChatSnapshot,
	type StopResult
} from './chat-snapshot';
import { isBusy, transition, type ChatStatus } from './chat-status';
import { currentModel, modelToSend } from './model-choice';
import { applyRunEvent, emptyLiveRun, settledLiveRun, type RunOutcome } from './live-run';
import type { OpenRunStream, RunStreamHandle } from './run-stream';
import { isTerminal, type ConversationDetail, type MessageDto, type Readiness, type StreamEvent, type WireError } from '../protocol';

const MODEL_CODES = new Set(['MODEL_UNREACHABLE', 'MODEL_UNAVAILABLE', 'MODEL_AUTH_FAILED', 'MODEL_RATE_LIMITED']);
/**
 * Conversations the sidebar asks for at a time. The list is fetched again after every run, so
 * with thousands of conversations a page keeps that cheap; "Show more" adds another page.
 */
export const LIST_PAGE = 100;

function isReadiness(v: unknown): v is Readiness {
	return typeof v === 'object' && v !== null && 'status' in v && 'checks' in v;
}

export class ChatController {
	private state: ChatSnapshot = INITIAL_SNAPSHOT;
	private readonly listeners = new Set<(s: ChatSnapshot) => void>();
	private stream: RunStreamHandle | null = null;
	private epoch = 0;
	private listRequest = 0;
	private listLimit = LIST_PAGE;
	private localMessages = 0;

	constructor(private readonly deps: { api: ChatApi; openStream: OpenRunStream }) {}

	get snapshot(): ChatSnapshot {
		return this.state;
	}

	subscribe(listener: (s: ChatSnapshot) => void): () => void {
		this.listeners.add(listener);
		return () => this.listeners.delete(listener);
	}

	/** First load: the list and readiness, then `preferred` (from the URL) or the newest conversation. */
	async start(preferred: string | null): Promise<void> {
		const epoch = this.epoch;
		await Promise.all([this.refreshList(), this.checkReadiness()]);
		// The reader may have chosen already (New chat, another conversation, a first message).
		if (epoch === this.epoch && this.state.status === 'idle' && this.state.conversationId === null) {
			const { conversations, hasMoreConversations } = this.state;
			// A conversation from the URL may be older than the first page: only then is it asked for unseen.
			const known = conversations.some((c) => c.id === preferred) || (hasMoreConversations && preferred !== null);
			const id = preferred && known ? preferred : conversations[0]?.id;
			if (id) await this.select(id);
		}
		this.set({ started: true });
	}

	async select(id: string): Promise<void> {
		const epoch = this.navigate();
		this.set({ conversationId: id });
		this.to('loading');
		const detail = await this.loadDetail(id, epoch, { storedError: true });
		if (epoch !== this.epoch) return;
		this.set({ modelChoice: currentModel(detail?.conversation ?? null, this.state.models) });
		if (detail?.conversation.status === 'running') this.attach(id);
		else this.to('idle');
	}

	newChat(): void {
		this.navigate();
		this.set({ modelChoice: currentModel(null, this.state.models) });
		if (this.state.status !== 'idle') this.to('idle');
	}

	/** The composer's model for the open conversation; the next message carries it. */
	chooseModel(id: string): void {
		this.set({ modelChoice: id });
	}

	/** Starts a run with `text`. False when nothing was sent: the caller gives the text back. */
	async send(text: string): Promise<boolean> {
		const message = text.trim();
		if (!message || this.state.status !== 'idle') return false;
		const epoch = this.epoch;
		const conversation = this.state.conversationId;
		const model = modelToSend(this.state.modelChoice, conversation ? currentSummary(this.state) : null, this.state.models);
		this.set({ error: null, notice: null });
		this.to('sending');
		const res = await this.deps.api.startRun({ message, conversation, ...(model ? { model } : {}) });
		if (epoch !== this.epoch) return res.ok;
		if (!res.ok) {
			if (res.error.code === 'SESSION_IN_PROGRESS' && conversation) {
				this.attach(conversation);
				this.set({ notice: { kind: 'info', message: IN_PROGRESS_MESSAGE } });
			} else {
				this.set({ error: res.error });
				this.to('idle');
			}
			return false;
		}
		const mine: MessageDto = { id: `local-${++this.localMessages}`, role: 'user', content: message };
		const base = res.value.conversation === conversation ? this.state.base : [];
		this.set({ conversationId: res.value.conversation, runId: res.value.run, base: [...base, mine] });
		this.attach(res.value.conversation);
		void this.refreshList();
		return true;
	}

	async resume(): Promise<void> {
		const id = this.state.conversationId;
		if (!id || this.state.status !== 'idle' || !this.state.resumable) return;
		const epoch = this.epoch;
		this.set({ error: null, notice: null });
		this.to('sending');
		const res = await this.deps.api.startRun({ conversation: id, resume: true });
		if (epoch !== this.epoch) return;
		if (res.ok) {
			this.set({ runId: res.value.run });
			this.attach(id);
			void this.refreshList();
		} else if (res.error.code === 'SESSION_IN_PROGRESS') {
			this.attach(id);
		} else {
			this.set({ error: res.error, resumable: res.error.code === 'RUN_NOT_RESUMABLE' ? false : this.state.resumable });
			this.to('idle');
		}
	}

	/**
	 * Stop: asks the server to cancel the run (POST /api/runs/:id/cancel) and waits for its
	 * `cancelled` end. A server without that endpoint (404/405) cannot stop it, so the page detaches
	 * instead: it closes its stream and says the run goes on. Any other refusal keeps following.
	 */
	async stop(): Promise<StopResult> {
		const id = this.state.conversationId;
		if (this.state.status !== 'streaming' || !id) return 'not-streaming';
		const epoch = this.epoch;
		const stream = this.stream;
		this.to('stopping');
		const stillStopping = () => epoch === this.epoch && this.stream === stream && this.state.status === 'stopping';
		let runId = this.state.runId;
		if (!runId) {
			const runs = await this.deps.api.listRuns(id);
			runId = runs.ok ? (runs.value.find((r) => r.status === 'running')?.id ?? null) : null;
			if (!stillStopping()) return 'ended';
		}
		if (!runId) {
			this.detach();
			return 'detached';
		}
		const res = await this.deps.api.cancelRun(runId);
		if (!stillStopping()) return 'ended';
		if (res.ok) {
			this.set({ notice: { kind: 'info', message: CANCELLING_MESSAGE } });
			return 'cancelling';
		}
		if (res.status === 404 || res.status === 405) {
			this.detach();
			return 'detached';
		}
		this.set({ error: res.error });
		this.to('streaming');
		return 'failed';
	}

	/** Follows the open conversation's run again after a detach. */
	follow(): void {
		if (this.state.status === 'idle' && this.state.conversationId) this.attach(this.state.conversationId);
	}

	/** Deletes a conversation; the server's error when it refuses (409 while a run is active). */
	async remove(id: string): Promise<WireError | null> {
		const res = await this.deps.api.deleteConversation(id);
		if (!res.ok) return res.error;
		if (this.state.conversationId === id) this.newChat();
		this.set({ conversations: this.state.conversations.filter((c) => c.id !== id) });
		void this.refreshList();
		return null;
	}

	async refreshList(): Promise<void> {
		const request = ++this.listRequest;
		const res = await this.deps.api.listConversations(this.listLimit);
		if (request !== this.listRequest) return;
		if (res.ok) {
			const { conversations, hasMore } = res.value;
			this.set({ conversations, hasMoreConversations: hasMore, listState: 'ready' });
		} else if (this.state.listState !== 'ready') {
			this.set({ listState: 'error', error: { code: 'LOAD_CONVERSATIONS_ERROR', message: `Failed to load conversations (${res.error.message})` } });
		}
	}

	/** Lists another page of older conversations. */
	async showMoreConversations(): Promise<void> {
		this.listLimit = this.state.conversations.length + LIST_PAGE;
		await this.refreshList();
	}

	/** Readiness and the model list together: a provider that came back brings its models. */
	async checkReadiness(): Promise<void> {
		const [res, models] = await Promise.all([this.deps.api.readiness(), this.deps.api.listModels()]);
		this.set({ readiness: res.ok && isReadiness(res.value) ? res.value : null });
		if (models.ok && models.value) {
			this.set({ models: models.value });
			if (this.state.modelChoice === null) {
				const open = this.state.conversationId ? currentSummary(this.state) : null;
				this.set({ modelChoice: currentModel(open, models.value) });
			}
		}
	}

	dismissError(): void {
		this.set({ error: null });
	}

	dismissNotice(): void {
		this.set({ notice: null });
	}

	dispose(): void {
		this.navigate();
		this.listeners.clear();
	}

	private set(patch: Partial<ChatSnapshot>): void {
		this.state = { ...this.state, ...patch };
		for (const listener of this.listeners) listener(this.state);
	}

	private to(status: ChatStatus): void {
		this.set({ status: transition(this.state.status, status) });
	}

	/** Leaves the open conversation: closes its stream and forgets its state. */
	private navigate(): number {
		this.closeStream();
		this.set({
			conversationId: null,
			base: [],
			live: null,
			runId: null,
			resumable: false,
			error: null,
			notice: null,
			connection: null,
			modelChoice: null,
			lastRunUsage: null
		});
		return ++this.epoch;
	}

	private closeStream(): void {
		this.stream?.close();
		this.stream = null;
	}

	private detach(): void {
		this.closeStream();
		this.set({ connection: null, notice: { kind: 'detached', message: DETACHED_MESSAGE } });
		this.to('idle');
		void this.refreshList();
	}

	/** Follows the conversation's run from its first event: the replay rebuilds the partial answer. */
	private attach(id: string): void {
		this.closeStream();
		this.epoch++;
		this.set({ live: emptyLiveRun(), connection: 'connecting', resumable: false, notice: null, error: null, lastRunUsage: null });
		if (this.state.status !== 'streaming') this.to('streaming');
		const handle: RunStreamHandle = this.deps.openStream(id, {
			onEvent: (e) => this.stream === handle && this.onEvent(id, e),
			onOpen: () => this.stream === handle && this.set({ connection: 'open' }),
			onReconnecting: () => this.stream === handle && this.set({ connection: 'reconnecting' }),
			onFailed: () => {
				if (this.stream !== handle) return;
				this.closeStream();
				this.set({ connection: null, error: { code: 'SSE_ERROR', message: 'Connection to the run stream failed.' } });
				this.to('idle');
			}
		});
		this.stream = handle;
	}

	private onEvent(id: string, e: StreamEvent): void {
		const before = this.state.live ?? emptyLiveRun();
		const live = applyRunEvent(before, e);
		if (live === before) return;
		if (!isTerminal(e) || !live.outcome) {
			this.set({ live, connection: 'open' });
			return;
		}
		this.closeStream();
		this.set({ live, connection: null });
		void this.finishRun(id, live.outcome);
	}

	/** After the terminal event: say how it ended, then replace the live transcript with the durable one. */
	private async finishRun(id: string, outcome: RunOutcome): Promise<void> {
		const epoch = this.epoch;
		this.to('idle');
		if (outcome.kind === 'error') {
			this.set({ error: { code: outcome.code, message: outcome.message } });
			if (MODEL_CODES.has(outcome.code)) void this.checkReadiness();
		} else if (outcome.status === 'cancelled') {
			this.set({ notice: { kind: 'cancelled', message: CANCELLED_MESSAGE } });
		}
		const storedError = outcome.kind === 'end' && outcome.status === 'failed';
		this.set({ syncing: true });
		try {
			await Promise.all([this.loadDetail(id, epoch, { storedError }), this.refreshList(), this.loadRunUsage(id, epoch, outcome.run)]);
		} finally {
			this.set({ syncing: false });
		}
	}

	/** The ended run's totals for the timeline (GET /api/conversations/:id/runs). */
	private async loadRunUsage(id: string, epoch: number, runId: string | undefined): Promise<void> {
		const res = await this.deps.api.listRuns(id);
		if (epoch !== this.epoch || !res.ok) return;
		const run = res.value.find((r) => r.id === (runId ?? this.state.runId)) ?? res.value[0];
		this.set({ lastRunUsage: run?.usage ?? null });
	}

	private async loadDetail(id: string, epoch: number, opts: { storedError: boolean }): Promise<ConversationDetail | null> {
		const res = await this.deps.api.getConversation(id);
		if (epoch !== this.epoch) return null;
		if (!res.ok) {
			this.set({ error: { code: res.error.code, message: `Failed to load the conversation: ${res.error.message}` } });
			return null;
		}
		const detail = res.value;
		const summary = detail.conversation;
		const stored = opts.storedError && summary.status === 'failed' && summary.error ? summary.error : null;
		this.set({
			base: detail.messages,
			resumable: detail.resumable,
			live: this.state.live && !isBusy(this.state.status) ? settledLiveRun(this.state.live) : this.state.live,
			conversations: this.state.conversations.map((c) => (c.id === summary.id ? summary : c)),
			loadedSummary: summary,
			...(stored ? { error: stored } : {})
		});
		return detail;
	}
}
