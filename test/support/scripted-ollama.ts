import type http from 'node:http';
import { checkHold, split, type Script, type ScriptedModelServer } from './model-script';
import { ScriptedHttpServer } from './scripted-server';

/**
 * A stand-in for Ollama that speaks its HTTP protocol (POST /api/chat as NDJSON or one JSON body,
 * GET /api/tags, GET /api/version, 404 "model ... not found"), for machines where no model can run.
 * Each reply is decided by a script from the request it is sent, so a replayed step gets the same
 * reply; every request is recorded so tests can assert on what the client sent.
 */

export type OllamaMessage = {
	role: 'system' | 'user' | 'assistant' | 'tool';
	content: string;
	thinking?: string;
	tool_calls?: { function: { name: string; arguments: Record<string, unknown> } }[];
	tool_name?: string;
};

export type ChatRequest = {
	model: string;
	messages: OllamaMessage[];
	tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
	stream?: boolean;
	think?: boolean;
	options?: Record<string, unknown>;
};

export type { Script, ScriptedReply } from './model-script';

export class ScriptedOllama extends ScriptedHttpServer implements ScriptedModelServer {
	readonly requests: ChatRequest[] = [];
	/** How often the model list was asked for (readiness does). */
	tagsRequests = 0;
	/**
	 * Echoing mode: every request fails with this status and an error that quotes the request's
	 * Authorization header and URL, as a careless proxy in front of Ollama does.
	 */
	echoStatus: number | undefined;

	private constructor(
		script: Script,
		public models: string[]
	) {
		super(script);
	}

	static async start(script: Script, models = ['qwen3:latest']): Promise<ScriptedOllama> {
		const instance = new ScriptedOllama(script, models);
		await instance.listen();
		return instance;
	}

	get url(): string {
		return this.origin;
	}

	get defaultModel(): string {
		return 'ollama/qwen3';
	}

	serviceEnv(): Record<string, string> {
		return { OLLAMA_HOST: this.url };
	}

	protected async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
		const body = await ScriptedHttpServer.body(req);
		if (req.method === 'POST' && req.url === '/api/chat' && this.echoStatus !== undefined) await this.holdIfAsked();
		if (this.echoStatus !== undefined) {
			return this.json(res, this.echoStatus, { error: `refused ${req.method} ${req.url} with Authorization: ${req.headers.authorization ?? '(none)'}` });
		}
		if (req.method === 'GET' && req.url === '/api/tags') {
			this.tagsRequests++;
			return this.json(res, 200, this.tags());
		}
		if (req.method === 'GET' && req.url === '/api/version') return this.json(res, 200, { version: '0.12.6' });
		if (req.method === 'POST' && req.url === '/api/chat') {
			await this.holdIfAsked();
			return this.chat(JSON.parse(body) as ChatRequest, res);
		}
		this.json(res, 404, { error: 'not found' });
	}

	private tags() {
		return {
			models: this.models.map((name) => ({
				name,
				model: name,
				modified_at: '2026-11-01T00:00:00Z',
				size: 5_200_000_000,
				digest: 'a'.repeat(64),
				details: { format: 'gguf', family: 'qwen3', parameter_size: '8.2B', quantization_level: 'Q4_K_M' }
			}))
		};
	}

	private served(model: string): boolean {
		return this.models.some((m) => m === model || m === `${model}:latest`);
	}

	private async chat(request: ChatRequest, res: http.ServerResponse): Promise<void> {
		this.requests.push(request);
		if (!this.served(request.model)) {
			return this.json(res, 404, { error: `model "${request.model}" not found, try pulling it first` });
		}
		const reply = this.script(request);
		if (reply.httpError) return this.json(res, reply.httpError.status, { error: reply.httpError.error });
		const base = () => ({ model: request.model, created_at: new Date().toISOString() });
		const toolCalls = reply.toolCalls?.map((c, index) => ({
			id: `call_${Math.random().toString(36).slice(2, 10)}`,
			function: { index, name: c.name, arguments: c.arguments }
		}));
		const size = reply.chunkChars ?? 4;
		const thinking = reply.thinking && request.think !== false ? split(reply.thinking, size) : [];
		const content = split(reply.content ?? '', size);
		checkHold(reply, content.length);
		const final = {
			...base(),
			done: true,
			done_reason: 'stop',
			total_duration: 1_000_000,
			load_duration: 100_000,
			prompt_eval_count: request.messages.length * 10,
			prompt_eval_duration: 200_000,
			eval_count: thinking.length + content.length + 1,
			eval_duration: 700_000
		};
		if (request.stream === false) {
			return this.json(res, 200, {
				...final,
				message: {
					role: 'assistant',
					content: reply.content ?? '',
					...(thinking.length ? { thinking: reply.thinking } : {}),
					...(toolCalls ? { tool_calls: toolCalls } : {})
				}
			});
		}
		res.writeHead(200, { 'Content-Type': 'application/x-ndjson' });
		const line = (o: unknown) => res.write(`${JSON.stringify(o)}\n`);
		for (const t of thinking) line({ ...base(), message: { role: 'assistant', content: '', thinking: t }, done: false });
		for (const [i, c] of content.entries()) {
			if (reply.hold && i === reply.holdAfterChunks) {
				await this.holds.reach(reply.hold);
				if (res.destroyed) return;
			}
			line({ ...base(), message: { role: 'assistant', content: c }, done: false });
			if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
		}
		if (toolCalls) line({ ...base(), message: { role: 'assistant', content: '', tool_calls: toolCalls }, done: false });
		line({ ...final, message: { role: 'assistant', content: '' } });
		res.end();
	}

	private json(res: http.ServerResponse, status: number, body: unknown): void {
		res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' });
		res.end(JSON.stringify(body));
	}
}
