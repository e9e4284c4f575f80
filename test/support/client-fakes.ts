import type { ApiResult, ChatApi } from '../../src/lib/client/chat-api';
import type { OpenRunStream, RunStreamHandlers } from '../../src/lib/client/run-stream';
import type { AllowedTool, ConversationDetail, ConversationSummary, MessageDto, ModelList, PendingApproval, Readiness, StreamEvent } from '../../src/lib/protocol';

/** Fakes for the client controller: an API whose answers a test sets or holds, and scripted streams. */

export const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
export const fail = (status: number, code: string, message = code): ApiResult<never> => ({ ok: false, status, error: { code, message } });

type Deferred<T> = { promise: Promise<T>; resolve: (v: T) => void };
export function deferred<T>(): Deferred<T> {
	let resolve!: (v: T) => void;
	const promise = new Promise<T>((r) => (resolve = r));
	return { promise, resolve };
}

export function summary(id: string, extra: Partial<ConversationSummary> = {}): ConversationSummary {
	return {
		id,
		title: `Title ${id}`,
		createdAt: '2026-11-01T10:00:00.000Z',
		updatedAt: '2026-11-01T10:00:00.000Z',
		messageCount: 0,
		model: null,
		status: 'completed',
		...extra
	};
}

export function detail(id: string, messages: MessageDto[], extra: Partial<ConversationSummary> = {}, resumable = false): ConversationDetail {
	return { conversation: summary(id, { messageCount: messages.length, ...extra }), messages, resumable, queue: [], approvals: [], elicitations: [] };
}

/** A call that waits for a decision, as the detail and the `approval` event carry it. */
export function pending(toolCallId: string, tool = 'test__effect', args: Record<string, unknown> = { item: 'a' }): PendingApproval {
	return {
		toolCallId,
		tool,
		args,
		reason: { kind: 'policy', message: `${tool} may change something outside this conversation.` },
		requestedAt: '2026-11-01T10:00:00.000Z',
		expiresAt: '2026-11-02T10:00:00.000Z'
	};
}

/** A conversation whose last run ended `waiting` on `approvals`. */
export function waitingDetail(id: string, messages: MessageDto[], approvals: PendingApproval[]): ConversationDetail {
	return { ...detail(id, messages, { status: 'waiting' }), approvals };
}

export const READY: Readiness = {
	status: 'ok',
	defaultModel: 'ollama/qwen3',
	checks: { database: { status: 'ok' }, model: { status: 'ok' }, providers: { ollama: { status: 'ok', kind: 'ollama' } }, mcp: {} }
};

export const MODELS: ModelList = {
	default: 'ollama/qwen3',
	models: [
		{ id: 'ollama/qwen3', provider: 'ollama', name: 'qwen3' },
		{ id: 'openai/qwen3-8b', provider: 'openai', name: 'qwen3-8b' }
	],
	providers: [
		{ name: 'ollama', kind: 'ollama', status: 'ok' },
		{ name: 'openai', kind: 'openai', status: 'ok' }
	]
};

type Calls = { [K in keyof ChatApi]: Parameters<ChatApi[K]>[] };

/** Every method answers from `answers`, which a test may replace; every call is recorded. */
export class FakeApi implements ChatApi {
	readonly calls: Calls = {
		listConversations: [],
		getConversation: [],
		listRuns: [],
		startRun: [],
		switchBranch: [],
		cancelRun: [],
		answerElicitation: [],
		deleteConversation: [],
		readiness: [],
		listAllowedTools: [],
		revokeAllowedTool: [],
		importBundle: [],
		signOutMcpServer: [],
		listModels: [],
		listPrompts: [],
		getPrompt: [],
		listResources: []
	};
	conversations: ConversationSummary[] = [];
	allowed: AllowedTool[] = [];
	details = new Map<string, ConversationDetail>();
	answers: { [K in keyof ChatApi]: (...args: Parameters<ChatApi[K]>) => ReturnType<ChatApi[K]> | Awaited<ReturnType<ChatApi[K]>> } = {
		listConversations: (limit) => ok({ conversations: this.conversations.slice(0, limit), hasMore: this.conversations.length > limit }),
		getConversation: (id) => {
			const d = this.details.get(id);
			return d ? ok(d) : fail(404, 'NOT_FOUND', 'Conversation Not Found');
		},
		listRuns: () => ok([]),
		startRun: (body) => ok({ conversation: body.conversation ?? 'new-conversation', run: 'run-1' }),
		switchBranch: (id) => {
			const d = this.details.get(id);
			return d ? ok(d) : fail(404, 'NOT_FOUND', 'Conversation Not Found');
		},
		cancelRun: () => fail(404, 'HTTP_404', 'Not Found'),
		answerElicitation: () => ok({}),
		deleteConversation: () => ok(null),
		readiness: () => ok(READY),
		listAllowedTools: () => ok([...this.allowed]),
		revokeAllowedTool: (tool) => {
			const before = this.allowed.length;
			this.allowed = this.allowed.filter((t) => t.tool !== tool);
			return this.allowed.length < before ? ok(null) : fail(404, 'NOT_FOUND', `The tool "${tool}" is not always allowed`);
		},
		signOutMcpServer: () => ok(null),
		listModels: () => ok(MODELS),
		importBundle: () => ok({ conversation: 'imported', checkpoints: 0 }),
		listPrompts: () => ok({ prompts: [], unavailable: [] }),
		getPrompt: (name) => ok({ name, messages: [] }),
		listResources: () => ok({ servers: [], unavailable: [] })
	};

	listConversations = (limit: number) => this.answer('listConversations', limit);
	getConversation = (id: string) => this.answer('getConversation', id);
	listRuns = (id: string) => this.answer('listRuns', id);
	startRun = (body: Parameters<ChatApi['startRun']>[0]) => this.answer('startRun', body);
	switchBranch = (id: string, messageId: string) => this.answer('switchBranch', id, messageId);
	cancelRun = (runId: string) => this.answer('cancelRun', runId);
	answerElicitation = (run: string, id: string, answer: Parameters<ChatApi['answerElicitation']>[2]) => this.answer('answerElicitation', run, id, answer);
	deleteConversation = (id: string) => this.answer('deleteConversation', id);
	readiness = () => this.answer('readiness');
	listAllowedTools = () => this.answer('listAllowedTools');
	revokeAllowedTool = (tool: string) => this.answer('revokeAllowedTool', tool);
	signOutMcpServer = (server: string) => this.answer('signOutMcpServer', server);
	listModels = () => this.answer('listModels');
	importBundle = (text: string) => this.answer('importBundle', text);
	listPrompts = () => this.answer('listPrompts');
	getPrompt = (name: string, args: Record<string, string>) => this.answer('getPrompt', name, args);
	listResources = () => this.answer('listResources');

	private async answer<K extends keyof ChatApi>(name: K, ...args: Parameters<ChatApi[K]>): Promise<Awaited<ReturnType<ChatApi[K]>>> {
		(this.calls[name] as unknown[]).push(args);
		const fn = this.answers[name] as (...a: Parameters<ChatApi[K]>) => unknown;
		return (await fn(...args)) as Awaited<ReturnType<ChatApi[K]>>;
	}
}

/** `runId`: the run the page named when it opened the stream (one it had just started). */
export type FakeStream = { conversationId: string; runId?: string; handlers: RunStreamHandlers; closed: boolean };

/** Streams the controller opens; a test emits into them. */
export class FakeStreams {
	readonly opened: FakeStream[] = [];
	readonly open: OpenRunStream = (conversationId, handlers, runId) => {
		const stream: FakeStream = { conversationId, ...(runId ? { runId } : {}), handlers, closed: false };
		this.opened.push(stream);
		return { close: () => void (stream.closed = true) };
	};

	get last(): FakeStream {
		const s = this.opened.at(-1);
		if (!s) throw new Error('no stream was opened');
		return s;
	}

	emit(...events: StreamEvent[]): void {
		for (const e of events) this.last.handlers.onEvent(e);
	}
}

/** Builders for stream events. */
export const ev = {
	token: (id: number, data: string): StreamEvent => ({ event: 'token', id, data }),
	reasoning: (id: number, data: string): StreamEvent => ({ event: 'reasoning', id, data }),
	enter: (id: number, step: number, node = 'agent'): StreamEvent => ({ event: 'trace', id, data: { step, name: node === 'agent' ? 'qwen3' : 'tool', node, event: 'enter' } }),
	leave: (id: number, step: number, node = 'agent'): StreamEvent => ({ event: 'trace', id, data: { step, name: node === 'agent' ? 'qwen3' : 'tool', node, event: 'leave' } }),
	call: (id: number, step: number, name: string, callId: string, args: Record<string, unknown> = {}): StreamEvent => ({
		event: 'trace',
		id,
		data: { step, name, node: 'tools', event: 'call', data: { name, arguments: args, tool_call_id: callId } }
	}),
	result: (id: number, step: number, name: string, callId: string, result: string, status: 'success' | 'error' = 'success'): StreamEvent => ({
		event: 'trace',
		id,
		data: { step, name, node: 'tools', event: 'result', data: { name, tool_call_id: callId, status, result } }
	}),
	approval: (id: number, approvals: PendingApproval[], conversation = 'c1'): StreamEvent => ({
		event: 'approval',
		id,
		data: { conversation, run: 'run-1', approvals }
	}),
	end: (id: number | null, status: 'completed' | 'interrupted' | 'cancelled' | 'failed' | 'waiting' | null = 'completed', conversation = 'c1'): StreamEvent => ({
		event: 'end',
		id,
		data: { conversation, status, ...(id === null ? {} : { run: 'run-1' }) }
	}),
	error: (id: number, code: string, message: string): StreamEvent => ({ event: 'chat-error', id, data: { code, message, conversation: 'c1', run: 'run-1' } })
};

/** Lets every queued promise callback run: the fakes answer in microtasks, so one macrotask turn drains them. */
export function settle(): Promise<void> {
	return new Promise((resolve) => setImmediate(resolve));
}
