/**
 * The HTTP API as the page uses it. Every call resolves to a value, never throws: failures come
 * back as `{ ok: false, status, error }` with the server's code, `HTTP_<status>` when the body has
 * none, or `FETCH_ERROR` (status 0) when the server could not be reached.
 */
import { z } from '../protocol/zod';
import {
	AllowedToolSchema,
	ModelListSchema,
	PromptListSchema,
	PromptMessagesSchema,
	ResourceListSchema,
	type PromptList,
	type PromptMessages,
	type ResourceList,
	type AllowedTool,
	type ChatBody,
	type ConversationDetail,
	type ConversationPage,
	type Decision,
	type ElicitationAnswer,
	type ImportResult,
	type ModelList,
	type Readiness,
	type RunRecord,
	type WireError
} from '../protocol';

export type ApiResult<T> = { ok: true; value: T } | { ok: false; status: number; error: WireError };

export type ChatApi = {
	listConversations(limit: number): Promise<ApiResult<ConversationPage>>;
	getConversation(id: string): Promise<ApiResult<ConversationDetail>>;
	listRuns(id: string): Promise<ApiResult<RunRecord[]>>;
	/** `model` (with a message): a model the reader chose, sent only when it differs from the conversation's. */
	startRun(body: StartBody): Promise<ApiResult<{ conversation: string; run: string }>>;
	/** POST /api/conversations/:id/branch: the conversation as it reads on the branch now active. */
	switchBranch(id: string, messageId: string): Promise<ApiResult<ConversationDetail>>;
	/** GET /api/models; null when the body is not a model list. */
	listModels(): Promise<ApiResult<ModelList | null>>;
	/** POST /api/runs/:id/cancel: 404 or 405 means this server has no cancel endpoint. */
	cancelRun(runId: string): Promise<ApiResult<unknown>>;
	deleteConversation(id: string): Promise<ApiResult<null>>;
	readiness(): Promise<ApiResult<Readiness>>;
	listAllowedTools(): Promise<ApiResult<AllowedTool[]>>;
	/** DELETE /api/allowed-tools/<tool>: 404 when the tool is not (or no longer) always allowed. */
	revokeAllowedTool(tool: string): Promise<ApiResult<null>>;
	/** POST /api/conversations/import with a bundle file's text, sent as it is (the server parses and checks it). */
	importBundle(text: string): Promise<ApiResult<ImportResult>>;
	/** POST /api/mcp/<server>/sign-out: forgets the remote server's OAuth tokens. */
	signOutMcpServer(server: string): Promise<ApiResult<null>>;
	/** GET /api/mcp/prompts: every MCP server's prompts. */
	listPrompts(): Promise<ApiResult<PromptList>>;
	/** POST /api/mcp/prompts/<server__prompt>: the prompt's messages for `args`. */
	getPrompt(name: string, args: Record<string, string>): Promise<ApiResult<PromptMessages>>;
	/** GET /api/mcp/resources: every MCP server's resources. */
	listResources(): Promise<ApiResult<ResourceList>>;
	/** POST /api/runs/<run>/elicitations/<id>: 400 names the field the content fails on, 409 a closed question. */
	answerElicitation(run: string, id: string, answer: ElicitationAnswer): Promise<ApiResult<unknown>>;
};

/** POST /api/chat's bodies that start a run (the page cancels by run, POST /api/runs/:id/cancel). */
export type StartBody = Exclude<ChatBody, { cancel: true }>;

const AllowedListSchema = z.object({ allowed: z.array(AllowedToolSchema) });

type Fetch = typeof fetch;

function wireError(body: unknown, res: Response): WireError {
	const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
	if (error && typeof error.code === 'string') {
		return { code: error.code, message: typeof error.message === 'string' ? error.message : '' };
	}
	return { code: `HTTP_${res.status}`, message: res.statusText || 'Request failed' };
}

async function call<T>(fetchImpl: Fetch, url: string, init: RequestInit, pick: (body: unknown) => T, okStatuses: number[] = []): Promise<ApiResult<T>> {
	let res: Response;
	try {
		res = await fetchImpl(url, { ...init, headers: { Accept: 'application/json', ...init.headers } });
	} catch {
		return { ok: false, status: 0, error: { code: 'FETCH_ERROR', message: 'Failed to connect to the server.' } };
	}
	if (res.status === 204) return { ok: true, value: pick(null) };
	let body: unknown = null;
	try {
		body = await res.json();
	} catch {
		// A body that is not JSON (an HTML 404 page, an empty 405) still has a status to act on.
	}
	if (res.ok || okStatuses.includes(res.status)) return { ok: true, value: pick(body) };
	return { ok: false, status: res.status, error: wireError(body, res) };
}

const enc = encodeURIComponent;

export function httpChatApi(fetchImpl: Fetch = (...args) => fetch(...args)): ChatApi {
	const json = (body: unknown): RequestInit => ({
		method: 'POST',
		headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify(body)
	});
	return {
		listConversations: (limit) =>
			call(fetchImpl, `/api/conversations?limit=${limit}`, {}, (b) => {
				const page = b as Partial<ConversationPage>;
				return { conversations: page.conversations ?? [], hasMore: page.hasMore === true };
			}),
		getConversation: (id) => call(fetchImpl, `/api/conversations/${enc(id)}`, {}, (b) => b as ConversationDetail),
		listRuns: (id) => call(fetchImpl, `/api/conversations/${enc(id)}/runs`, {}, (b) => (b as { runs: RunRecord[] }).runs ?? []),
		startRun: (body) => call(fetchImpl, '/api/chat', json(body), (b) => b as { conversation: string; run: string }),
		switchBranch: (id, messageId) =>
			call(fetchImpl, `/api/conversations/${enc(id)}/branch`, json({ messageId }), (b) => b as ConversationDetail),
		listModels: () =>
			call(fetchImpl, '/api/models', {}, (b) => {
				const list = ModelListSchema.safeParse(b);
				return list.success ? list.data : null;
			}),
		cancelRun: (runId) => call(fetchImpl, `/api/runs/${enc(runId)}/cancel`, json({}), (b) => b),
		answerElicitation: (run, id, answer) => call(fetchImpl, `/api/runs/${enc(run)}/elicitations/${enc(id)}`, json(answer), (b) => b),
		deleteConversation: (id) => call(fetchImpl, `/api/conversations/${enc(id)}`, { method: 'DELETE' }, () => null),
		// 503 carries the same body as 200: which check is down is the point of asking.
		readiness: () => call(fetchImpl, '/api/readyz', {}, (b) => b as Readiness, [503]),
		listAllowedTools: async () => {
			const res = await call(fetchImpl, '/api/allowed-tools', {}, (b) => AllowedListSchema.safeParse(b));
			if (!res.ok) return res;
			if (!res.value.success) return { ok: false, status: 200, error: { code: 'BAD_RESPONSE', message: 'The server sent a list this page cannot read.' } };
			return { ok: true, value: res.value.data.allowed };
		},
		revokeAllowedTool: (tool) => call(fetchImpl, `/api/allowed-tools/${enc(tool)}`, { method: 'DELETE' }, () => null),
		importBundle: (text) =>
			call(fetchImpl, '/api/conversations/import', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: text }, (b) => b as ImportResult),
		signOutMcpServer: (server) => call(fetchImpl, `/api/mcp/${enc(server)}/sign-out`, json({}), () => null),
		listPrompts: () => parsed(call(fetchImpl, '/api/mcp/prompts', {}, (b) => PromptListSchema.safeParse(b))),
		getPrompt: (name, args) => parsed(call(fetchImpl, `/api/mcp/prompts/${enc(name)}`, json({ arguments: args }), (b) => PromptMessagesSchema.safeParse(b))),
		listResources: () => parsed(call(fetchImpl, '/api/mcp/resources', {}, (b) => ResourceListSchema.safeParse(b)))
	};
}

/** An answer parsed with its schema: one the page cannot read is a failure, as a refusal is. */
async function parsed<T>(answer: Promise<ApiResult<{ success: true; data: T } | { success: false }>>): Promise<ApiResult<T>> {
	const res = await answer;
	if (!res.ok) return res;
	if (!res.value.success) return { ok: false, status: 200, error: { code: 'BAD_RESPONSE', message: 'The server sent an answer this page cannot read.' } };
	return { ok: true, value: res.value.data };
}
