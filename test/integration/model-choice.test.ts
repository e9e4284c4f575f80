import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Script } from '../support/model-script';
import { ScriptedOllama } from '../support/scripted-ollama';
import { ScriptedOpenAI } from '../support/scripted-openai';
import { answerScript, currentTurn } from '../support/scripts';
import { ROOT, Service, tempDir } from '../support/service';
import { followRun, tokensOf } from '../support/sse';

type Message = { role: string; content: string; model?: string; reasoning?: string; usage?: Record<string, number> };
type Detail = { conversation: { model: string | null; messageCount: number }; messages: Message[] };

/** Thinks, reads the memory graph, thinks again, answers: a tool-call turn with reasoning to send back. */
const thinkingToolScript: Script = (request) =>
	currentTurn(request).after.some((m) => m.role === 'tool')
		? { thinking: 'The graph is empty.', content: 'Nothing is stored yet.' }
		: { thinking: 'I should look at the graph.', toolCalls: [{ name: 'memory__read_graph', arguments: {} }] };

/**
 * One service with three providers: Ollama (the default), `openai` from OPENAI_BASE_URL, and `vllm`
 * from models.json (an API key and a model name with slashes, both through ${VAR}, and reasoning
 * streamed as vLLM names it). A conversation switches between them turn by turn.
 */
describe('choosing the model per conversation', () => {
	let ollama: ScriptedOllama;
	let openai: ScriptedOpenAI;
	let vllm: ScriptedOpenAI;
	let service: Service;

	const detail = async (id: string): Promise<Detail> => (await service.fetch(`/api/conversations/${id}`)).json();
	const send = async (body: Record<string, unknown>) => {
		const res = await service.post('/api/chat', body);
		expect(res.status).toBe(200);
		const { conversation } = await res.json();
		const events = await followRun(service.url, conversation);
		expect(events.at(-1)?.event).toBe('end');
		return { conversation: conversation as string, events };
	};

	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('From Ollama.'));
		openai = await ScriptedOpenAI.start(answerScript('From the OpenAI-compatible server.'));
		vllm = await ScriptedOpenAI.start(thinkingToolScript, { models: ['Qwen/Qwen3-8B'], apiKey: 'vllm-secret' });
		vllm.reasoningField = 'reasoning';
		const configDir = tempDir('sophos-config-');
		for (const f of ['mcp.json', 'system.md']) fs.copyFileSync(path.join(ROOT, 'config', f), path.join(configDir, f));
		fs.writeFileSync(path.join(configDir, 'models.json'), JSON.stringify({ vllm: { baseUrl: '${VLLM_URL}', apiKey: '${VLLM_KEY}' } }));
		service = await Service.start({
			ollamaUrl: ollama.url,
			configDir,
			env: { OPENAI_BASE_URL: openai.url, VLLM_URL: vllm.url, VLLM_KEY: 'vllm-secret' }
		});
	});
	afterAll(async () => {
		await service.stop();
		await Promise.all([ollama.close(), openai.close(), vllm.close()]);
	});

	it('lists the models of every provider, and the default', async () => {
		const res = await service.fetch('/api/models');
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual({
			default: 'ollama/qwen3',
			models: [
				{ id: 'ollama/qwen3', provider: 'ollama', name: 'qwen3' },
				{ id: 'openai/qwen3-8b', provider: 'openai', name: 'qwen3-8b' },
				{ id: 'vllm/Qwen/Qwen3-8B', provider: 'vllm', name: 'Qwen/Qwen3-8B' }
			],
			providers: [
				{ name: 'ollama', kind: 'ollama', status: 'ok' },
				{ name: 'openai', kind: 'openai', status: 'ok' },
				{ name: 'vllm', kind: 'openai', status: 'ok' }
			]
		});
		// The key reached the server that needs it, and only that one.
		expect(vllm.authorizations.at(-1)).toBe('Bearer vllm-secret');
		expect(openai.authorizations.at(-1)).not.toContain('vllm-secret');
	});

	it('keeps the model of a conversation for later turns until another is sent', async () => {
		const { conversation } = await send({ message: 'one' });
		expect((await detail(conversation)).conversation.model).toBe('ollama/qwen3');

		const second = await send({ conversation, message: 'two', model: 'openai/qwen3-8b' });
		expect(tokensOf(second.events)).toBe('From the OpenAI-compatible server.');
		await send({ conversation, message: 'three' });
		const d = await detail(conversation);
		expect(d.conversation.model).toBe('openai/qwen3-8b');
		expect(d.messages.filter((m) => m.role === 'assistant').map((m) => [m.model, m.content])).toEqual([
			['ollama/qwen3', 'From Ollama.'],
			['openai/qwen3-8b', 'From the OpenAI-compatible server.'],
			['openai/qwen3-8b', 'From the OpenAI-compatible server.']
		]);
		// The OpenAI-compatible server was sent the whole thread, Ollama's answer included, and asked for usage.
		const request = openai.requests.at(-1)!;
		expect(request.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'assistant', 'user']);
		expect(request.stream_options).toEqual({ include_usage: true });
		expect(ollama.requests).toHaveLength(1);
	});

	it('streams vLLM-style reasoning, keeps it, and sends it back with the tool-call turn it belongs to', async () => {
		const { conversation, events } = await send({ message: 'what do you know?', model: 'vllm/Qwen/Qwen3-8B' });
		const reasoning = events.filter((e) => e.event === 'reasoning').map((e) => e.data).join('');
		expect(reasoning).toBe('I should look at the graph.The graph is empty.');
		expect(tokensOf(events)).toBe('Nothing is stored yet.');
		const d = await detail(conversation);
		const answers = d.messages.filter((m) => m.role === 'assistant');
		expect(answers.map((m) => m.reasoning)).toEqual(['I should look at the graph.', 'The graph is empty.']);
		expect(answers.every((m) => m.model === 'vllm/Qwen/Qwen3-8B')).toBe(true);
		// The second call carried the first call's reasoning on its tool-call turn, as DeepSeek and Kimi require.
		const second = vllm.requests.at(-1)!;
		const toolTurn = second.messages.find((m) => m.role === 'assistant')!;
		expect(toolTurn.tool_calls?.[0]?.function.name).toBe('memory__read_graph');
		expect(toolTurn.reasoning_content).toBe('I should look at the graph.');
	});

	it('regenerates an answer with another model; the first run keeps its usage on the branch it left', async () => {
		const { conversation } = await send({ message: 'again' });
		const [first] = (await detail(conversation)).messages.filter((m) => m.role === 'assistant') as (Message & { id: string })[];
		expect(first!.model).toBe('ollama/qwen3');
		await send({ conversation, regenerate: first!.id, model: 'openai/qwen3-8b' });
		const shown = (await detail(conversation)).messages.filter((m) => m.role === 'assistant');
		expect(shown.map((m) => [m.model, m.content])).toEqual([['openai/qwen3-8b', 'From the OpenAI-compatible server.']]);
		const runs = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs;
		expect(runs.map((r: { trigger: string; usage: { calls: number } }) => [r.trigger, r.usage.calls])).toEqual([
			['regenerate', 1],
			['message', 1]
		]);
	});

	it('counts usage per answer and per run', async () => {
		const { conversation } = await send({ message: 'count', model: 'openai/qwen3-8b' });
		const [answer] = (await detail(conversation)).messages.filter((m) => m.role === 'assistant');
		// The scripted server's usage chunk: 10 prompt tokens per message sent (system and user), one per chunk.
		expect(answer!.usage).toMatchObject({ inputTokens: 20, outputTokens: 9 });
		expect(answer!.usage!.durationMs).toBeGreaterThanOrEqual(answer!.usage!.firstTokenMs!);
		expect(answer!.usage!.tokensPerSecond).toBeGreaterThan(0);
		const runs = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs;
		expect(runs[0].usage).toEqual({ calls: 1, inputTokens: 20, outputTokens: 9, durationMs: answer!.usage!.durationMs });
		const jsonl = (await (await service.fetch(`/api/conversations/${conversation}/export?format=jsonl`)).text()).trim().split('\n');
		expect(JSON.parse(jsonl.at(-1)!).last_message).toMatchObject({ model: 'openai/qwen3-8b', usage: { inputTokens: 20, outputTokens: 9 } });
	});
});
