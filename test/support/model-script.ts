/**
 * What the scripted model servers share: a script decides each reply from the request it is
 * sent (so a replayed step gets the same reply), and a reply can stop at a named hold until the
 * test releases it. The request type is what both wire formats have in common (roles, text content,
 * tools named by `function.name`), so one script drives Ollama and an OpenAI-compatible server alike.
 */

export type ScriptRequest = {
	model: string;
	messages: { role: 'system' | 'user' | 'assistant' | 'tool'; content: string }[];
	tools?: { type: 'function'; function: { name: string; description?: string; parameters?: unknown } }[];
};

export type ScriptedReply = {
	thinking?: string;
	content?: string;
	/** `id`: the call's id, where the wire carries one (OpenAI's); servers that reuse ids are how issue 21 item 3 was met. */
	toolCalls?: { name: string; arguments: Record<string, unknown>; id?: string }[];
	/** Characters per streamed chunk (default 4: about one token). */
	chunkChars?: number;
	/** Stop streaming after this many content chunks until `release(hold)` is called. */
	holdAfterChunks?: number;
	/** Names the hold, for `held(name)` and `release(name)`. */
	hold?: string;
	/** Pause between chunks, for people watching the demo; tests never set it. */
	delayMs?: number;
	/**
	 * Answer with this HTTP error instead of a reply. Ollama sends `{error}`; an OpenAI-compatible
	 * server `{error: {message, type, param, code}}`, with `Retry-After` when given.
	 */
	httpError?: { status: number; error: string; type?: string; code?: string | null; retryAfter?: string };
};

export type Script = (request: ScriptRequest) => ScriptedReply;

type Deferred = { promise: Promise<void>; resolve: () => void };
const deferred = (): Deferred => {
	let resolve!: () => void;
	const promise = new Promise<void>((r) => (resolve = r));
	return { promise, resolve };
};

/** Named points a reply stops at: the server says when one is reached, the test when to go on. */
export class Holds {
	private readonly holds = new Map<string, { reached: Deferred; released: Deferred }>();

	/** Resolves when a reply with this hold has streamed up to it. */
	held(name: string): Promise<void> {
		return this.get(name).reached.promise;
	}

	release(name: string): void {
		this.get(name).released.resolve();
	}

	/** Called by the server at the hold: marks it reached and waits for its release. */
	async reach(name: string): Promise<void> {
		const h = this.get(name);
		h.reached.resolve();
		await h.released.promise;
	}

	releaseAll(): void {
		for (const h of this.holds.values()) h.released.resolve();
	}

	private get(name: string) {
		let h = this.holds.get(name);
		if (!h) this.holds.set(name, (h = { reached: deferred(), released: deferred() }));
		return h;
	}
}

export function split(text: string, size: number): string[] {
	const parts: string[] = [];
	for (let i = 0; i < text.length; i += size) parts.push(text.slice(i, i + size));
	return parts;
}

/** A hold the reply never reaches would leave the test waiting forever: fail it loudly. */
export function checkHold(reply: ScriptedReply, contentChunks: number): void {
	if (reply.hold && (reply.holdAfterChunks ?? 0) >= contentChunks) {
		throw new Error(`hold "${reply.hold}" after ${reply.holdAfterChunks} chunks, but the reply has ${contentChunks}`);
	}
}

/** What the test harness needs of a scripted model server, whichever protocol it speaks. */
export interface ScriptedModelServer {
	script: Script;
	readonly requests: ScriptRequest[];
	/** The service's settings that point it at this server and make its model the default. */
	serviceEnv(): Record<string, string>;
	/** The model id the service answers with by default, `<provider>/<model>`. */
	readonly defaultModel: string;
	held(name: string): Promise<void>;
	release(name: string): void;
	close(): Promise<void>;
}
