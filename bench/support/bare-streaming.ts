// The bare-LangGraph baseline of bench/service-streaming.ts, in a process of its own so that its
// event-loop lag and peak RSS are its own (the bench preloads loop-lag.mjs): bare LangGraph.js,
// ChatOllama or ChatOpenAI and the stock SqliteSaver, one agent step per thread, streamed with the
// messages stream mode and read in the same process. Nothing of Sophos is imported.
// Args: <ollama|openai> <server url> <runs> <database path>; the expected answer comes over IPC. Over IPC it answers
// SIGUSR2 (loop-lag.mjs's reset, whose listener runs first) with {reset}, and tells its parent when
// every stream has ended: {events, wrong} (chunks read, runs whose text was not the answer).
import Database from 'better-sqlite3';
import { HumanMessage, type AIMessageChunk } from '@langchain/core/messages';
import { END, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { ChatOllama } from '@langchain/ollama';
import { ChatOpenAI } from '@langchain/openai';

const [client, url, runs, dbPath] = process.argv.slice(2) as ['ollama' | 'openai', string, string, string];
process.on('SIGUSR2', () => process.send!({ reset: true }));
const answer = await new Promise<string>((resolve) => process.once('message', (m: { answer: string }) => resolve(m.answer)));

const model =
	client === 'ollama'
		? new ChatOllama({ baseUrl: url, model: 'qwen3', think: false })
		: new ChatOpenAI({ model: 'qwen3-8b', apiKey: 'bench', configuration: { baseURL: url }, streaming: true, streamUsage: true });
const graph = new StateGraph(MessagesAnnotation)
	.addNode('agent', async (s) => ({ messages: [await model.invoke(s.messages)] }))
	.addEdge(START, 'agent')
	.addEdge('agent', END)
	.compile({ checkpointer: new SqliteSaver(new Database(dbPath)) });

async function follow(i: number): Promise<{ events: number; text: string }> {
	const stream = await graph.stream(
		{ messages: [new HumanMessage(`bench ${i}`)] },
		{ configurable: { thread_id: `bare-${i}` }, streamMode: 'messages', durability: 'sync' }
	);
	let events = 0;
	let text = '';
	for await (const [chunk] of stream as AsyncIterable<[AIMessageChunk, unknown]>) {
		events++;
		if (typeof chunk.content === 'string') text += chunk.content;
	}
	return { events, text };
}

const results = await Promise.all(Array.from({ length: Number(runs) }, (_, i) => follow(i)));
process.send!({
	events: results.reduce((n, r) => n + r.events, 0),
	wrong: results.filter((r) => r.text !== answer).length
});
process.disconnect();
