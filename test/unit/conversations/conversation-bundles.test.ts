import { AIMessage, HumanMessage } from '@langchain/core/messages';
import { MemorySaver, emptyCheckpoint } from '@langchain/langgraph-checkpoint';
import { describe, expect, it } from 'vitest';
import { ConversationBundleSchema } from '../../../src/lib/protocol';
import type { ThreadCheckpoint } from '../../../src/lib/server/checkpoint/thread-put';
import { putThreadCheckpoints } from '../../../src/lib/server/checkpoint/thread-put';
import { decodeCheckpoints, threadCheckpoints } from '../../../src/lib/server/conversations/bundle-codec';
import { withNewIds } from '../../../src/lib/server/conversations/bundle-ids';
import { ConversationBundles } from '../../../src/lib/server/conversations/conversation-bundles';
import { Redactor } from '../../../src/lib/server/secrets/redactor';
import type { TransferStorage } from '../../../src/lib/server/storage/transfer-storage';
import type { ConversationRecords } from '../../../src/lib/server/storage/transfer-records';

const CONVERSATION = '0b0e7e4c-5a43-4d7e-9d5e-2f1c3a0d9b11';
const RUN = '7c9d2f1e-3b4a-4c5d-8e6f-1a2b3c4d5e6f';
const SECRET = 'sk-the-api-key-0123456789';
const T = '2026-01-01T00:00:00.000Z';

const records: ConversationRecords = {
	conversation: { id: CONVERSATION, title: 'Hi', createdAt: T, updatedAt: T, messageCount: 2, model: null },
	branch: null,
	runs: [{ id: RUN, status: 'failed', trigger: 'message', input: 'hi', error: { code: 'AGENT_FAILURE', message: `key ${SECRET}` }, startedAt: T, finishedAt: T }],
	journal: [],
	approvals: []
};

/** Three checkpoints of one run: the user message (its id the run's), then the answer, then a turn more. */
async function savedThread(): Promise<MemorySaver> {
	const saver = new MemorySaver();
	const user = new HumanMessage({ id: RUN, content: 'see https://example.com/?q=1' });
	const answer = new AIMessage({ id: 'ai-1', content: `the key is ${SECRET}` });
	const entries: ThreadCheckpoint[] = [
		{ ns: '', checkpoint: { ...emptyCheckpoint(), id: '1', channel_values: { messages: [user] }, channel_versions: { messages: 1 } }, metadata: { source: 'input', step: -1, parents: {} }, parentId: null, writes: [] },
		{ ns: '', checkpoint: { ...emptyCheckpoint(), id: '2', channel_values: { messages: [user, answer] }, channel_versions: { messages: 2 } }, metadata: { source: 'loop', step: 0, parents: {} }, parentId: '1', writes: [['task', 'messages', [answer]]] },
		{ ns: '', checkpoint: { ...emptyCheckpoint(), id: '3', channel_values: { messages: [user, answer, user] }, channel_versions: { messages: 3 } }, metadata: { source: 'loop', step: 1, parents: {} }, parentId: '2', writes: [] }
	];
	await putThreadCheckpoints(saver, CONVERSATION, entries);
	return saver;
}

function bundlesOver(saver: MemorySaver) {
	const transfer: TransferStorage = { read: async (id) => (id === CONVERSATION ? records : undefined), create: async () => ({ status: 'created' }) };
	return new ConversationBundles({ transfer, checkpointer: saver, redactor: new Redactor([SECRET]) });
}

describe('conversation bundles', () => {
	it('keeps each message once however many checkpoints hold it, and reads back as the thread was', async () => {
		const saver = await savedThread();
		const bundle = ConversationBundleSchema.parse(await bundlesOver(saver).export(CONVERSATION));
		expect(bundle.items).toHaveLength(2);
		expect(bundle.checkpoints.map((c) => c.values.messages)).toEqual([{ items: [0] }, { items: [0, 1] }, { items: [0, 1, 0] }]);
		const decoded = await decodeCheckpoints(saver.serde, bundle);
		const original = await threadCheckpoints(saver, CONVERSATION);
		expect(decoded.map((c) => c.checkpoint.id)).toEqual(['1', '2', '3']);
		expect(decoded[2]!.checkpoint.channel_values.messages).toEqual(
			(original[2]!.checkpoint.channel_values.messages as AIMessage[]).map((m) => (m.id === 'ai-1' ? new AIMessage({ id: 'ai-1', content: 'the key is [redacted]' }) : m))
		);
		expect(decoded[1]!.writes).toHaveLength(1);
	});

	it('takes the secrets Sophos knows out of every text, and leaves a URL as it is', async () => {
		const text = JSON.stringify(await bundlesOver(await savedThread()).export(CONVERSATION));
		expect(text).not.toContain(SECRET);
		expect(text).toContain('key [redacted]');
		expect(text).toContain('https://example.com/?q=1');
	});

	it('gives a copy new conversation and run ids wherever a value is one of them, and nothing else', async () => {
		const bundle = ConversationBundleSchema.parse(await bundlesOver(await savedThread()).export(CONVERSATION));
		const copy = withNewIds(bundle, 'new-conversation', () => 'new-run');
		expect(copy.conversation.id).toBe('new-conversation');
		expect(copy.runs[0]!.id).toBe('new-run');
		expect(JSON.stringify(copy)).not.toContain(RUN);
		expect(JSON.stringify(copy.items[0])).toContain('"id":"new-run"');
		expect(copy.items[1]).toEqual(bundle.items[1]);
	});

	it('answers an unknown conversation, a held one and a bad bundle with refusal values, not errors', async () => {
		const bundles = bundlesOver(await savedThread());
		expect(await bundles.export('0b0e7e4c-0000-4d7e-9d5e-2f1c3a0d9b11')).toEqual({ refused: 'conversation-not-found' });
		expect(await bundles.import({ format: 'sophos-conversation', formatVersion: 99 }, false)).toMatchObject({ refused: 'bundle-invalid', problem: expect.stringContaining('format version 99') });
		const held = new ConversationBundles({
			transfer: { read: async () => ({ ...records, runs: [{ ...records.runs[0]!, status: 'running' }] }), create: async () => ({ status: 'created' }) },
			checkpointer: new MemorySaver(),
			redactor: new Redactor([])
		});
		expect(await held.export(CONVERSATION)).toEqual({ refused: 'export-while-running' });
	});
});
