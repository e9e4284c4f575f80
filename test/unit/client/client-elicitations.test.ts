import { beforeEach, describe, expect, it } from 'vitest';
import { ChatController } from '../../../src/lib/client/chat-controller';
import type { PendingElicitation, StreamEvent } from '../../../src/lib/protocol';
import { FakeApi, FakeStreams, fail, settle } from '../../support/client-fakes';

const question = (id: string): PendingElicitation => ({
	id,
	run: 'run-1',
	server: 'test',
	tool: 'test__ask',
	message: 'Who is asking?',
	mode: 'form',
	requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
	expiresAt: '2026-01-01T00:10:00.000Z'
});
const asked = (id: number, q: PendingElicitation): StreamEvent => ({ event: 'elicitation', id, data: { conversation: 'new-conversation', run: 'run-1', elicitation: q } });
const closed = (id: number, q: string): StreamEvent => ({ event: 'elicitation-closed', id, data: { conversation: 'new-conversation', run: 'run-1', id: q, action: 'cancel' } });

describe('ChatController and a tool server\'s questions', () => {
	let api: FakeApi;
	let streams: FakeStreams;
	let chat: ChatController;

	beforeEach(() => {
		api = new FakeApi();
		streams = new FakeStreams();
		chat = new ChatController({ api, openStream: streams.open });
	});

	it('shows a question from its event, drops it when it is closed, and answers one through the API', async () => {
		await chat.send('who am I?');
		streams.emit(asked(1, question('q1')), asked(2, question('q2')));
		expect(chat.snapshot.elicitations.map((q) => q.id)).toEqual(['q1', 'q2']);
		streams.emit(closed(3, 'q1'));
		expect(chat.snapshot.elicitations.map((q) => q.id)).toEqual(['q2']);
		expect(await chat.answerElicitation(question('q2'), { action: 'accept', content: { name: 'Ada' } })).toBeNull();
		expect(api.calls.answerElicitation).toEqual([['run-1', 'q2', { action: 'accept', content: { name: 'Ada' } }]]);
		expect(chat.snapshot.elicitations).toEqual([]);
	});

	it('keeps a question the server refused content for, and drops one it says is closed', async () => {
		await chat.send('who am I?');
		streams.emit(asked(1, question('q1')));
		api.answers.answerElicitation = () => fail(400, 'BAD_REQUEST', 'content.name: required');
		expect(await chat.answerElicitation(question('q1'), { action: 'accept', content: {} })).toMatchObject({ message: 'content.name: required' });
		expect(chat.snapshot.elicitations).toHaveLength(1);
		api.answers.answerElicitation = () => fail(409, 'ELICITATION_CLOSED');
		expect(await chat.answerElicitation(question('q1'), { action: 'decline' })).toMatchObject({ code: 'ELICITATION_CLOSED' });
		expect(chat.snapshot.elicitations).toEqual([]);
	});

	it('forgets every question when the run ends', async () => {
		await chat.send('who am I?');
		streams.emit(asked(1, question('q1')), { event: 'end', id: 2, data: { conversation: 'new-conversation', run: 'run-1', status: 'completed' } });
		await settle();
		expect(chat.snapshot.elicitations).toEqual([]);
	});
});
