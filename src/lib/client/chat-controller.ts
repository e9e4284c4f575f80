/**
 * The chat page's state machine, free of any framework: conversations, the open conversation's
 * durable messages, the run being followed (applied event by event, by id), stop, resume, the
 * decisions on tool calls that wait for a person, branches (edit, regenerate, switching between
 * versions), and delete. It talks to the server only through
 * `ChatApi` and `OpenRunStream`, so tests drive it with fakes and no browser. Listeners get a
 * fresh immutable snapshot after every change.
 *
 * Navigation (select, new chat) and every newly followed run bump an epoch; an answer that arrives
 * for an older epoch is dropped, so a slow response never paints one conversation's messages into
 * another, nor a finished run's reload over the next run's first message.
 */
import type { ApiResult, ChatApi, StartBody } from './chat-api';
import {
	CANCELLED_MESSAGE,
	CANCELLING_MESSAGE,
	DECIDED_ELSEWHERE_MESSAGE,
	DECIDING_ELSEWHERE_MESSAGE,
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
import { ConversationList } from './conversation-list';
import { SnapshotStore } from './snapshot-store';
import {
	CancelResultSchema,
	isTerminal,
	type ConversationDetail,
	type Decision,
	type MessageDto,
	type Readiness,
	type StreamEvent,
	type WireError
} from '../protocol';

const MODEL_CODES = new Set(['MODEL_UNREACHABLE', 'MODEL_UNAVAILABLE', 'MODEL_AUTH_FAILED', 'MODEL_RATE_LIMITED']);

export { LIST_PAGE } from './conversation-list';

function isReadiness(v: unknown): v is Readiness {
	return typeof v === 'object' && v !== null && 'status' in v && 'checks' in v;
}

export class ChatController extends SnapshotStore<ChatSnapshot> {
	private stream: RunStreamHandle | null = null;
	private epoch = 0;
	private localMessages = 0;
	private readonly list: ConversationList;

	constructor(private readonly deps: { api: ChatApi; openStream: OpenRunStream }) {
		super(INITIAL_SNAPSHOT);
		this.list = new ConversationList(deps.api, () => this.state, (patch) => this.set(patch));
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
		if (!id || this.state.status !== 'idle' || !this.state.resumable || this.state.approvals.length > 0) return;
		await this.startAndFollow(id, { conversation: id, resume: true }, async ({ error }, epoch) => {
			this.set({ error, resumable: error.code === 'RUN_NOT_RESUMABLE' ? false : this.state.resumable });
			// It paused for a person since the page loaded (a crash left a call's outcome unknown): show the card.
			if (error.code === 'APPROVAL_REQUIRED') await this.loadDetail(id, epoch, { storedError: false });
		});
	}

	/**
	 * Decides every waiting call at once and follows the run that carries the decisions out. False
	 * when no run started: the card keeps what the person chose. A refusal of the decisions (4xx)
	 * means the calls changed since the page read them, most often because another tab or the
	 * approval timeout decided first, so the conversation is read again.
	 */
	async decide(decisions: Decision[]): Promise<boolean> {
		const id = this.state.conversationId;
		if (!id || this.state.status !== 'idle' || this.state.approvals.length === 0) return false;
		return this.startAndFollow(
			id,
			{ conversation: id, decisions },
			async ({ status, error }, epoch) => {
				this.set(error.code === 'NOT_WAITING' ? { notice: { kind: 'info', message: DECIDED_ELSEWHERE_MESSAGE } } : { error });
				if (status < 400 || status >= 500) return;
				const detail = await this.loadDetail(id, epoch, { storedError: false });
				if (detail?.conversation.status === 'running' && epoch === this.epoch && this.state.status === 'idle') this.attach(id);
			},
			DECIDING_ELSEWHERE_MESSAGE
		);
	}

	/**
	 * Replaces an earlier user message of the open conversation with `text`: a new branch from just
	 * before it, shown as the messages before it, the new text, and the new answer as it streams.
	 * False when nothing was sent (the editor keeps the text).
	 */
	async edit(messageId: string, text: string): Promise<boolean> {
		const message = text.trim();
		const id = this.state.conversationId;
		const at = this.state.base.findIndex((m) => m.id === messageId && m.role === 'user');
		if (!message || !id || at < 0 || this.state.status !== 'idle') return false;
		const mine: MessageDto = { id: `local-${++this.localMessages}`, role: 'user', content: message };
		const shown = [...this.state.base.slice(0, at), mine];
		return this.startAndFollow(id, { conversation: id, message, editOf: messageId }, async ({ error }) => this.set({ error }), IN_PROGRESS_MESSAGE, shown);
	}

	/** Runs again the step that produced an answer of the open conversation: a new branch, the old one kept. */
	async regenerate(messageId: string): Promise<boolean> {
		const id = this.state.conversationId;
		const at = this.state.base.findIndex((m) => m.id === messageId && m.role === 'assistant');
		if (!id || at < 0 || this.state.status !== 'idle') return false;
		const shown = this.state.base.slice(0, at);
		return this.startAndFollow(id, { conversation: id, regenerate: messageId }, async ({ error }) => this.set({ error }), IN_PROGRESS_MESSAGE, shown);
	}

	/** Shows the branch holding `messageId` (one of a message's versions); the server remembers it. */
	async switchBranch(messageId: string): Promise<void> {
		const id = this.state.conversationId;
		if (!id || this.state.status !== 'idle') return;
		const epoch = this.epoch;
		this.set({ error: null, notice: null });
		const res = await this.deps.api.switchBranch(id, messageId);
		if (epoch !== this.epoch) return;
		if (!res.ok) {
			this.set({ error: res.error });
			return;
		}
		this.showDetail(res.value, { storedError: false });
		void this.refreshList();
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
		let res = await this.deps.api.cancelRun(runId);
		if (!stillStopping()) return 'ended';
		const successor = res.ok ? await this.carriedOnBy(id, res.value) : null;
		if (!stillStopping()) return 'ended';
		if (successor) {
			this.set({ runId: successor });
			res = await this.deps.api.cancelRun(successor);
			if (!stillStopping()) return 'ended';
		}
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

	/**
	 * The run the stream went on with, when the cancelled one had been interrupted before it was
	 * asked: its owner died, and the run that resumed it (AUTO_RESUME) carries on the same stream.
	 */
	private async carriedOnBy(id: string, answer: unknown): Promise<string | null> {
		const cancelled = CancelResultSchema.safeParse(answer);
		if (!cancelled.success || cancelled.data.status !== 'interrupted') return null;
		const runs = await this.deps.api.listRuns(id);
		return (runs.ok && runs.value.find((r) => r.status === 'running')?.id) || null;
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

	refreshList(): Promise<void> {
		return this.list.refresh();
	}

	/** Lists another page of older conversations. */
	showMoreConversations(): Promise<void> {
		return this.list.showMore();
	}

	/** Readiness and the model list together: a provider that came back brings its models. */
	/** Signs out of a remote MCP server, then reads readiness again, which now offers its sign-in. */
	async signOutMcpServer(server: string): Promise<void> {
		await this.deps.api.signOutMcpServer(server);
		await this.checkReadiness();
	}

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
		this.unsubscribeAll();
	}

	/**
	 * Starts a run on the open conversation and follows it, showing `shown` as its transcript until
	 * the run's events add to it (an edit or a regenerate replaces what follows the message). A run
	 * already going on (409) is followed instead, with `busyNotice`; every other refusal goes to `refused`.
	 */
	private async startAndFollow(
		id: string,
		body: StartBody,
		refused: (res: Extract<ApiResult<unknown>, { ok: false }>, epoch: number) => Promise<void>,
		busyNotice?: string,
		shown?: MessageDto[]
	): Promise<boolean> {
		const epoch = this.epoch;
		this.set({ error: null, notice: null });
		this.to('sending');
		const res = await this.deps.api.startRun(body);
		if (epoch !== this.epoch) return false;
		if (res.ok) {
			this.set({ runId: res.value.run, ...(shown ? { base: shown } : {}) });
			this.attach(id);
			void this.refreshList();
			return true;
		}
		if (res.error.code === 'SESSION_IN_PROGRESS') {
			this.attach(id);
			if (busyNotice) this.set({ notice: { kind: 'info', message: busyNotice } });
			return false;
		}
		this.to('idle');
		await refused(res, epoch);
		return false;
	}

	private to(status: ChatStatus): void {
		this.set({ status: transition(this.state.status, status) });
	}

	/** Leaves the open conversation: closes its stream and forgets its state. */
	private navigate(): number {
		this.closeStream();
		const forgotten = { live: null, runId: null, resumable: false, approvals: [], error: null, notice: null, connection: null };
		this.set({ conversationId: null, base: [], ...forgotten, modelChoice: null, lastRunUsage: null });
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
		this.set({ live: emptyLiveRun(), connection: 'connecting', resumable: false, approvals: [], notice: null, error: null, lastRunUsage: null });
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
		// The card can show at once; the detail read after `end` is what stays.
		if (e.event === 'approval' && e.data.conversation === id) this.set({ approvals: e.data.approvals });
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
		this.showDetail(res.value, opts);
		return res.value;
	}

	private showDetail(detail: ConversationDetail, opts: { storedError: boolean }): void {
		const summary = detail.conversation;
		const stored = opts.storedError && summary.status === 'failed' && summary.error ? summary.error : null;
		this.set({
			base: detail.messages,
			resumable: detail.resumable,
			approvals: detail.approvals,
			live: this.state.live && !isBusy(this.state.status) ? settledLiveRun(this.state.live) : this.state.live,
			conversations: this.state.conversations.map((c) => (c.id === summary.id ? summary : c)),
			loadedSummary: summary,
			...(stored ? { error: stored } : {})
		});
	}
}
