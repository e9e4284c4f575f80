import { randomBytes } from 'node:crypto';
import type http from 'node:http';
import { checkHold, split, type Script, type ScriptedModelServer, type ScriptRequest } from './model-script';
import { ScriptedHttpServer } from './scripted-server';

/**
 * A stand-in for an OpenAI-compatible server (LM Studio, llama.cpp's llama-server, vLLM, a hosted
 * API) speaking the Chat Completions wire format under /v1: POST /chat/completions streamed as
 * server-sent events (`data: {chunk}` lines, a role chunk first, content, reasoning and tool-call
 * deltas, tool calls split across chunks by `index` with the id and name only in the first, a
 * last chunk with `finish_reason`, the usage chunk with empty `choices` when
 * `stream_options.include_usage` asks for it, then `data: [DONE]`), or one JSON body; GET /models;
 * errors as `{error: {message, type, param, code}}` with 401 for a wrong key, 404 for an unknown
 * model, or whatever status a script asks for. Scripted like ScriptedOllama, from the same scripts.
 */

export type OpenAIMessage = ScriptRequest['messages'][number] & {
	tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
	tool_call_id?: string;
	reasoning_content?: string;
};

export type CompletionRequest = Omit<ScriptRequest, 'messages'> & {
	messages: OpenAIMessage[];
	stream?: boolean;
	stream_options?: { include_usage?: boolean };
	/** MAX_ANSWER_TOKENS, when the service sets it. */
	max_tokens?: number;
};

/** Which field a server streams reasoning in: `reasoning_content` (DeepSeek, LM Studio), `reasoning` (vLLM). */
export type ReasoningField = 'reasoning_content' | 'reasoning';

const id = (prefix: string, bytes = 12) => `${prefix}${randomBytes(bytes).toString('hex')}`;

/** Text parts of a content array joined; the scripts read content as text. */
function text(content: unknown): string {
	if (typeof content === 'string') return content;
	if (!Array.isArray(content)) return '';
	return content.map((p) => (typeof p?.text === 'string' ? p.text : '')).join('');
}

export class ScriptedOpenAI extends ScriptedHttpServer implements ScriptedModelServer {
	readonly requests: CompletionRequest[] = [];
	/** Authorization headers as sent, one per request of any kind. */
	readonly authorizations: (string | undefined)[] = [];
	reasoningField: ReasoningField = 'reasoning_content';
	/**
	 * Echoing mode: every request, the model list's included, fails with this status and an error
	 * message that quotes the request's Authorization header and URL, as careless servers and proxies do.
	 */
	echoStatus: number | undefined;

	private constructor(
		script: Script,
		public models: string[],
		/** When set, every request must carry `Authorization: Bearer <apiKey>`. */
		public apiKey: string | undefined
	) {
		super(script);
	}

	static async start(script: Script, options: { models?: string[]; apiKey?: string } = {}): Promise<ScriptedOpenAI> {
		const instance = new ScriptedOpenAI(script, options.models ?? ['qwen3-8b'], options.apiKey);
		await instance.listen();
		return instance;
	}

	get url(): string {
		return `${this.origin}/v1`;
	}

	get defaultModel(): string {
		return `openai/${this.models[0]}`;
	}

	serviceEnv(): Record<string, string> {
		return { OPENAI_BASE_URL: this.url, DEFAULT_MODEL: this.defaultModel, ...(this.apiKey ? { OPENAI_API_KEY: this.apiKey } : {}) };
	}

	protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const body = await ScriptedHttpServer.body(req);
		this.authorizations.push(req.headers.authorization);
		if (req.method === 'POST' && req.url === '/v1/chat/completions') await this.holdIfAsked();
		if (this.echoStatus !== undefined) {
			const status = this.echoStatus;
			return this.error(res, {
				status,
				error: `Refused ${req.method} ${req.url} with Authorization: ${req.headers.authorization ?? '(none)'}`,
				type: status === 429 ? 'requests' : 'invalid_request_error',
				code: status === 429 ? 'rate_limit_exceeded' : null
			});
		}
		if (this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
			return this.error(res, { status: 401, error: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' });
		}
		if (req.method === 'GET' && req.url === '/v1/models') {
			const created = 1_767_225_600;
			return this.json(res, 200, { object: 'list', data: this.models.map((m) => ({ id: m, object: 'model', created, owned_by: 'organization_owner' })) });
		}
		if (req.method === 'POST' && req.url === '/v1/chat/completions') {
			const request = JSON.parse(body) as CompletionRequest;
			request.messages = request.messages.map((m) => ({ ...m, content: text(m.content) }));
			return this.complete(request, res);
		}
		this.error(res, { status: 404, error: `Unexpected endpoint or method. (${req.method} ${req.url})`, type: 'invalid_request_error', code: null });
	}

	private async complete(request: CompletionRequest, res: http.ServerResponse): Promise<void> {
		this.requests.push(request);
		if (!this.models.includes(request.model)) {
			return this.error(res, {
				status: 404,
				error: `The model \`${request.model}\` does not exist or you do not have access to it.`,
				type: 'invalid_request_error',
				code: 'model_not_found'
			});
		}
		const reply = this.script(request);
		if (reply.httpError) return this.error(res, reply.httpError);
		const size = reply.chunkChars ?? 4;
		const reasoning = split(reply.thinking ?? '', size);
		const content = split(reply.content ?? '', size);
		checkHold(reply, content.length);
		const calls = (reply.toolCalls ?? []).map((c) => ({ id: c.id ?? id('call_'), name: c.name, args: split(JSON.stringify(c.arguments), size * 2) }));
		const completion = calls.reduce((n, c) => n + 1 + c.args.length, reasoning.length + content.length);
		const usage = { prompt_tokens: request.messages.length * 10, completion_tokens: completion, total_tokens: request.messages.length * 10 + completion };
		const finish = calls.length ? 'tool_calls' : 'stop';
		const base = { id: id('chatcmpl-'), object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model, system_fingerprint: 'fp_scripted' };

		if (!request.stream) {
			return this.json(res, 200, {
				...base,
				object: 'chat.completion',
				choices: [
					{
						index: 0,
						message: {
							role: 'assistant',
							content: reply.content ?? (calls.length ? null : ''),
							...(reply.thinking ? { [this.reasoningField]: reply.thinking } : {}),
							...(calls.length ? { tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.args.join('') } })) } : {})
						},
						logprobs: null,
						finish_reason: finish
					}
				],
				usage
			});
		}

		const withUsage = request.stream_options?.include_usage === true;
		res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
		const send = (choices: unknown[], extra: Record<string, unknown> = withUsage ? { usage: null } : {}) =>
			res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
		const delta = (d: Record<string, unknown>, finishReason: string | null = null) =>
			send([{ index: 0, delta: d, logprobs: null, finish_reason: finishReason }]);

		delta({ role: 'assistant', content: '', refusal: null });
		for (const r of reasoning) delta({ [this.reasoningField]: r });
		for (const [i, c] of content.entries()) {
			if (reply.hold && i === reply.holdAfterChunks) {
				await this.holds.reach(reply.hold);
				if (res.destroyed) return;
			}
			delta({ content: c });
			if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
		}
		for (const [index, call] of calls.entries()) {
			delta({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
			for (const piece of call.args) delta({ tool_calls: [{ index, function: { arguments: piece } }] });
		}
		delta({}, finish);
		if (withUsage) send([], { usage });
		res.end('data: [DONE]\n\n');
	}

	private error(res: http.ServerResponse, e: NonNullable<ReturnType<Script>['httpError']>): void {
		const headers: Record<string, string> = { 'Content-Type': 'application/json; charset=utf-8', ...(e.retryAfter ? { 'Retry-After': e.retryAfter } : {}) };
		res.writeHead(e.status, headers);
		res.end(JSON.stringify({ error: { message: e.error, type: e.type ?? 'server_error', param: null, code: e.code ?? null } }));
	}

	private json(res: http.ServerResponse, status: number, body: unknown): void {
		res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
		res.end(JSON.stringify(body));
	}
}
