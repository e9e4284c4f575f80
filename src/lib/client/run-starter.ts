/**
 * The chat page's ways into a run (POST /api/chat): a message, a resume, the decisions on calls
 * that wait for a person, an edit of a user message, a regenerate of an answer. Each started run
 * is followed (run-follower.ts); a run already going on (409) is followed instead.
 */
import type { ApiResult, StartBody } from './chat-api';
import type { ChatContext } from './chat-context';
import { DECIDED_ELSEWHERE_MESSAGE, DECIDING_ELSEWHERE_MESSAGE, IN_PROGRESS_MESSAGE, currentSummary } from './chat-snapshot';
import { modelToSend } from './model-choice';
import type { RunFollower } from './run-follower';
import type { Attachment, Decision, MessageDto } from '../protocol';

type Refusal = Extract<ApiResult<unknown>, { ok: false }>;

export class RunStarter {
	private localMessages = 0;

	constructor(
		private readonly chat: ChatContext,
		private readonly follower: RunFollower
	) {}

	/** Starts a run with `text` (and MCP resources read into it). False when nothing was sent: the caller gives the text back. */
	async send(text: string, attachments: Attachment[] = []): Promise<boolean> {
		const chat = this.chat;
		const message = text.trim();
		if (!message || chat.state.status !== 'idle') return false;
		const epoch = chat.epoch;
		const conversation = chat.state.conversationId;
		const model = modelToSend(chat.state.modelChoice, conversation ? currentSummary(chat.state) : null, chat.state.models);
		chat.set({ error: null, notice: null });
		chat.to('sending');
		const res = await chat.api.startRun({ message, conversation, ...(model ? { model } : {}), ...(attachments.length ? { attachments } : {}) });
		if (epoch !== chat.epoch) return res.ok;
		if (!res.ok) {
			if (res.error.code === 'SESSION_IN_PROGRESS' && conversation) {
				this.follower.attach(conversation);
				chat.set({ notice: { kind: 'info', message: IN_PROGRESS_MESSAGE } });
			} else {
				chat.set({ error: res.error });
				chat.to('idle');
			}
			return false;
		}
		const base = res.value.conversation === conversation ? chat.state.base : [];
		chat.set({ conversationId: res.value.conversation, runId: res.value.run, base: [...base, this.localMessage(message)] });
		this.follower.attach(res.value.conversation, res.value.run);
		void chat.refreshList();
		return true;
	}

	async resume(): Promise<void> {
		const chat = this.chat;
		const id = chat.state.conversationId;
		if (!id || chat.state.status !== 'idle' || !chat.state.resumable || chat.state.approvals.length > 0) return;
		await this.startAndFollow(id, { conversation: id, resume: true }, async ({ error }, epoch) => {
			chat.set({ error, resumable: error.code === 'RUN_NOT_RESUMABLE' ? false : chat.state.resumable });
			// It paused for a person since the page loaded (a crash left a call's outcome unknown): show the card.
			if (error.code === 'APPROVAL_REQUIRED') await chat.loadDetail(id, epoch, { storedError: false });
		});
	}

	/**
	 * Decides every waiting call at once and follows the run that carries the decisions out. False
	 * when no run started: the card keeps what the person chose. A refusal of the decisions (4xx)
	 * means the calls changed since the page read them, most often because another tab or the
	 * approval timeout decided first, so the conversation is read again.
	 */
	async decide(decisions: Decision[]): Promise<boolean> {
		const chat = this.chat;
		const id = chat.state.conversationId;
		if (!id || chat.state.status !== 'idle' || chat.state.approvals.length === 0) return false;
		return this.startAndFollow(
			id,
			{ conversation: id, decisions },
			async ({ status, error }, epoch) => {
				chat.set(error.code === 'NOT_WAITING' ? { notice: { kind: 'info', message: DECIDED_ELSEWHERE_MESSAGE } } : { error });
				if (status < 400 || status >= 500) return;
				const detail = await chat.loadDetail(id, epoch, { storedError: false });
				if (detail?.conversation.status === 'running' && epoch === chat.epoch && chat.state.status === 'idle') this.follower.attach(id);
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
		const chat = this.chat;
		const message = text.trim();
		const id = chat.state.conversationId;
		const at = chat.state.base.findIndex((m) => m.id === messageId && m.role === 'user');
		if (!message || !id || at < 0 || chat.state.status !== 'idle') return false;
		const shown = [...chat.state.base.slice(0, at), this.localMessage(message)];
		return this.startAndFollow(id, { conversation: id, message, editOf: messageId }, async ({ error }) => chat.set({ error }), IN_PROGRESS_MESSAGE, shown);
	}

	/** Runs again the step that produced an answer of the open conversation: a new branch, the old one kept. */
	async regenerate(messageId: string): Promise<boolean> {
		const chat = this.chat;
		const id = chat.state.conversationId;
		const at = chat.state.base.findIndex((m) => m.id === messageId && m.role === 'assistant');
		if (!id || at < 0 || chat.state.status !== 'idle') return false;
		const shown = chat.state.base.slice(0, at);
		return this.startAndFollow(id, { conversation: id, regenerate: messageId }, async ({ error }) => chat.set({ error }), IN_PROGRESS_MESSAGE, shown);
	}

	/** The reader's message as the transcript shows it until the durable one is read back. */
	private localMessage(content: string): MessageDto {
		return { id: `local-${++this.localMessages}`, role: 'user', content };
	}

	/**
	 * Starts a run on the open conversation and follows it, showing `shown` as its transcript until
	 * the run's events add to it (an edit or a regenerate replaces what follows the message). A run
	 * already going on (409) is followed instead, with `busyNotice`; every other refusal goes to `refused`.
	 */
	private async startAndFollow(
		id: string,
		body: StartBody,
		refused: (res: Refusal, epoch: number) => Promise<void>,
		busyNotice?: string,
		shown?: MessageDto[]
	): Promise<boolean> {
		const chat = this.chat;
		const epoch = chat.epoch;
		chat.set({ error: null, notice: null });
		chat.to('sending');
		const res = await chat.api.startRun(body);
		if (epoch !== chat.epoch) return false;
		if (res.ok) {
			chat.set({ runId: res.value.run, ...(shown ? { base: shown } : {}) });
			this.follower.attach(id, res.value.run);
			void chat.refreshList();
			return true;
		}
		if (res.error.code === 'SESSION_IN_PROGRESS') {
			this.follower.attach(id);
			if (busyNotice) chat.set({ notice: { kind: 'info', message: busyNotice } });
			return false;
		}
		chat.to('idle');
		await refused(res, epoch);
		return false;
	}
}
