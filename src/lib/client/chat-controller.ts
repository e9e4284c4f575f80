/**
 * The chat page's state machine, free of any framework: conversations, the open conversation's
 * durable messages, and its branches and delete. The run being followed and stop are
 * run-follower.ts's; the ways into a run (send, resume, decisions on waiting tool calls, edit,
 * regenerate) run-starter.ts's. It talks to the server only through `ChatApi` and
 * `OpenRunStream`, so tests drive it with fakes and no browser. Listeners get a fresh immutable
 * snapshot after every change.
 *
 * Navigation (select, new chat) and every newly followed run bump an epoch; an answer that arrives
 * for an older epoch is dropped, so a slow response never paints one conversation's messages into
 * another, nor a finished run's reload over the next run's first message.
 */
import type { ChatApi } from './chat-api';
import type { ChatContext } from './chat-context';
import { INITIAL_SNAPSHOT, currentSummary, type ChatSnapshot, type StopResult } from './chat-snapshot';
import { isBusy, transition, type ChatStatus } from './chat-status';
import { currentModel } from './model-choice';
import { settledLiveRun } from './live-run';
import { RunFollower } from './run-follower';
import { RunStarter } from './run-starter';
import type { OpenRunStream } from './run-stream';
import { ConversationList } from './conversation-list';
import { SnapshotStore } from './snapshot-store';
import type { Attachment, ConversationDetail, Decision, ElicitationAnswer, PendingElicitation, Readiness, WireError } from '../protocol';

export { LIST_PAGE } from './conversation-list';

function isReadiness(v: unknown): v is Readiness {
	return typeof v === 'object' && v !== null && 'status' in v && 'checks' in v;
}

export class ChatController extends SnapshotStore<ChatSnapshot> {
	private epoch = 0;
	private readonly list: ConversationList;
	private readonly follower: RunFollower;
	private readonly starter: RunStarter;

	constructor(private readonly deps: { api: ChatApi; openStream: OpenRunStream }) {
		super(INITIAL_SNAPSHOT);
		this.list = new ConversationList(deps.api, () => this.state, (patch) => this.set(patch));
		const self = this;
		const chat: ChatContext = {
			api: deps.api,
			get state() {
				return self.state;
			},
			set: (patch) => this.set(patch),
			to: (status) => this.to(status),
			get epoch() {
				return self.epoch;
			},
			nextEpoch: () => ++this.epoch,
			refreshList: () => this.refreshList(),
			checkReadiness: () => this.checkReadiness(),
			loadDetail: (id, epoch, opts) => this.loadDetail(id, epoch, opts)
		};
		this.follower = new RunFollower(chat, deps.openStream);
		this.starter = new RunStarter(chat, this.follower);
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
		if (detail?.conversation.status === 'running') this.follower.attach(id);
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

	/** Starts a run with `text` and the attached resources. False when nothing was sent: the caller gives the text back. */
	send(text: string, attachments: Attachment[] = []): Promise<boolean> {
		return this.starter.send(text, attachments);
	}

	resume(): Promise<void> {
		return this.starter.resume();
	}

	/** Decides every waiting call at once (run-starter.ts); false when no run started. */
	/** Answers a tool server's question; the error to show beside it, or null once it is answered. */
	async answerElicitation(question: PendingElicitation, answer: ElicitationAnswer): Promise<WireError | null> {
		const res = await this.deps.api.answerElicitation(question.run, question.id, answer);
		if (res.ok) {
			this.set({ elicitations: this.state.elicitations.filter((q) => q.id !== question.id) });
			return null;
		}
		// Closed meanwhile (answered in another tab, timed out, or its call ended): the card goes.
		if (res.status === 409 || res.status === 404) this.set({ elicitations: this.state.elicitations.filter((q) => q.id !== question.id) });
		return res.error;
	}

	decide(decisions: Decision[]): Promise<boolean> {
		return this.starter.decide(decisions);
	}

	/** Replaces an earlier user message with `text`, a new branch (run-starter.ts); false when nothing was sent. */
	edit(messageId: string, text: string): Promise<boolean> {
		return this.starter.edit(messageId, text);
	}

	/** Runs again the step that produced an answer: a new branch, the old one kept. */
	regenerate(messageId: string): Promise<boolean> {
		return this.starter.regenerate(messageId);
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

	/** Stop: cancels the followed run, or detaches where the server cannot (run-follower.ts). */
	stop(): Promise<StopResult> {
		return this.follower.stop();
	}

	/** Follows the open conversation's run again after a detach. */
	follow(): void {
		if (this.state.status === 'idle' && this.state.conversationId) this.follower.attach(this.state.conversationId);
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

	/** Imports a conversation bundle and opens the new conversation; the server's error when it refuses the file. */
	async importBundle(text: string): Promise<WireError | null> {
		const res = await this.deps.api.importBundle(text);
		if (!res.ok) return res.error;
		await this.refreshList();
		await this.select(res.value.conversation);
		return null;
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

	private to(status: ChatStatus): void {
		this.set({ status: transition(this.state.status, status) });
	}

	/** Leaves the open conversation: closes its stream and forgets its state. */
	private navigate(): number {
		this.follower.close();
		const forgotten = { live: null, runId: null, resumable: false, approvals: [], elicitations: [], error: null, notice: null, connection: null };
		this.set({ conversationId: null, base: [], ...forgotten, modelChoice: null, lastRunUsage: null });
		return ++this.epoch;
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
