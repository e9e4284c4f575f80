import { Client } from '@langchain/langgraph-sdk';
import { afterAll, beforeAll, expect, vi } from 'vitest';
import { ScriptedOllama, type Script } from './scripted-ollama';
import { currentTurn } from './scripts';
import { Service } from './service';

/** What an Agent Server protocol test runs against; its fields are set once the describe's beforeAll has run. */
export type ProtocolHarness<C = Client> = { ollama: ScriptedOllama; service: Service; client: C };

/**
 * Registers, in the describe that calls it, the set-up the protocol's integration files share: the
 * scripted model, the built service with the MCP config of `configDir`, and an SDK client of it
 * (`clientOf`: another SDK release's), started before the tests and stopped after them.
 */
export function protocolHarness<C = Client>(
	script: Script,
	configDir: string,
	clientOf: (apiUrl: string) => C = (apiUrl) => new Client({ apiUrl }) as C
): ProtocolHarness<C> {
	const harness = {} as ProtocolHarness<C>;
	beforeAll(async () => {
		harness.ollama = await ScriptedOllama.start(script);
		harness.service = await Service.start({ ollamaUrl: harness.ollama.url, configDir });
		harness.client = clientOf(harness.service.url);
	});
	afterAll(async () => {
		await harness.service?.stop();
		await harness.ollama?.close();
	});
	return harness;
}

/** The answer a `hold` script holds after its first chunk, long enough to act while it streams. */
export const LONG = 'This answer streams slowly, piece by piece, so a test can act while it runs.';

/**
 * The model scripted by the user's message: "peek", a read-only tool call, then `peeked`; "save
 * <item>", a write that waits for approval, then its result; "hold <name>", LONG held after its
 * first chunk until the test releases it; anything else echoed.
 */
export function peekSaveHold(peeked = 'Nothing new.'): Script {
	return (request) => {
		const { user, after } = currentTurn(request);
		const results = after.filter((m) => m.role === 'tool');
		if (user === 'peek') return results.length ? { content: peeked } : { content: 'Looking.', toolCalls: [{ name: 'test__peek', arguments: {} }] };
		const save = /^save (\w+)$/.exec(user);
		if (save) return results.length ? { content: `Result: ${results.at(-1)!.content}` } : { toolCalls: [{ name: 'test__effect', arguments: { item: save[1]! } }] };
		const hold = /^hold (\w+)$/.exec(user);
		if (hold) return { content: LONG, hold: hold[1]!, holdAfterChunks: 1 };
		return { content: `You said: ${user}` };
	};
}

/** A run's input of one human message. */
export const human = (content: string) => ({ messages: [{ type: 'human', content }] });

/** A thread's messages as `type:text` lines, tool calls' content as JSON. */
export const texts = (v: { messages: { type: string; content: unknown }[] }) =>
	v.messages.map((m) => `${m.type}:${typeof m.content === 'string' ? m.content : JSON.stringify(m.content)}`);

/** A new thread, made by its first run (if_not_exists "create"), answered and idle. */
export async function threadWith(client: Pick<Client, 'runs'>, message: string): Promise<string> {
	const thread = crypto.randomUUID();
	await client.runs.wait(thread, 'agent', { input: human(message), ifNotExists: 'create' });
	return thread;
}

/**
 * Settles once the run has an outcome, read from its status and never by following it: a join is a
 * reader, and one that attaches while on_disconnect "cancel" is still deciding (on PostgreSQL, after
 * a read of the other instances' readers) keeps the run going, as any reader does.
 */
export async function settled(client: Pick<Client, 'runs'>, thread: string, runId: string): Promise<void> {
	await vi.waitFor(async () => expect((await client.runs.get(thread, runId)).status).not.toMatch(/^(running|pending)$/), { timeout: 60_000, interval: 50 });
}
