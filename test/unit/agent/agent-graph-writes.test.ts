// Regression: a streamed model reply is an AIMessageChunk. Written as the agent step's pending write
// it differed from the AIMessage the reducer put in the thread, so the saver could not link the two
// and stored every answer twice (4.65× the message text in bench/chat-storage.ts, 2.16× once linked).

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessageChunk, HumanMessage, type BaseMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildAgentGraph } from '../../../src/lib/server/agent/agent-graph';
import { DeltaSqliteSaver } from '../../../src/lib/server/sqlite/checkpoint/index';
import { LINK } from '../../../src/lib/server/checkpoint/link-encoding.js';
import { migrate } from '../../../src/lib/server/sqlite/migrate';

function replyTo(messages: BaseMessage[]) {
	const message = new AIMessageChunk({ id: `run-${messages.length}`, content: `Answer to ${messages.length} messages.` });
	return { text: String(message.content), message };
}

/** Answers as ChatOllama does when it streams: the reply comes back as one aggregated chunk. */
class StreamedReplyModel extends BaseChatModel {
	_llmType(): string {
		return 'streamed-reply';
	}

	async _generate(messages: BaseMessage[]): Promise<ChatResult> {
		return { generations: [replyTo(messages)] };
	}

	async *_streamResponseChunks(messages: BaseMessage[]): AsyncGenerator<ChatGenerationChunk> {
		yield new ChatGenerationChunk(replyTo(messages));
	}
}

let dir = '';
beforeAll(() => {
	dir = mkdtempSync(join(tmpdir(), 'sophos-agent-writes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('stores a streamed answer once: the agent step writes the AIMessage the thread holds, as a link', async () => {
	const db = new Database(join(dir, 'sophos.db'));
	migrate(db);
	const graph = buildAgentGraph({
		checkpointer: new DeltaSqliteSaver(db),
		model: async () => ({ name: 'streamed-reply', chat: new StreamedReplyModel({}), sending: () => {}, classifyError: (e) => e as Error, record: (answer) => answer }),
		tools: async () => [],
		runTools: async () => ({ messages: [] }),
		turn: () => undefined,
		systemPrompt: async () => 'You are terse.',
		maxAnswerChars: 200_000
	});
	const config = { configurable: { thread_id: 'chat' } };
	for (let turn = 0; turn < 3; turn += 1) {
		await graph.invoke({ messages: [new HumanMessage({ id: `human-${turn}`, content: `Question ${turn}?` })] }, config);
	}
	const messages = (await graph.getState(config)).values.messages as BaseMessage[];
	expect(messages.map((m) => m.getType())).toEqual(['human', 'ai', 'human', 'ai', 'human', 'ai']);
	const writes = db
		.prepare(`SELECT encoding, COUNT(*) AS n FROM lg_writes WHERE channel = 'messages' GROUP BY encoding`)
		.all();
	// Three user messages and three answers, each written as a link to the item the thread holds.
	expect(writes).toEqual([{ encoding: LINK.ITEMS, n: 6 }]);
	db.close();
});
