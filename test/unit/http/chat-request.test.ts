import { describe, expect, it } from 'vitest';
import { parseChatRequest } from '../../../src/lib/server/http/chat-request';
import { parseUuid } from '../../../src/lib/protocol/uuid';

const ID = '0b6c7ae4-8a43-4b9e-9d7f-5c0f8f1e2a11';

describe('POST /api/chat body', () => {
	it('accepts the three shapes', () => {
		expect(parseChatRequest({ message: '  hi  ' }, 100)).toEqual({ kind: 'message', conversation: null, message: 'hi' });
		expect(parseChatRequest({ message: 'hi', conversation: ID.toUpperCase() }, 100)).toEqual({
			kind: 'message',
			conversation: ID,
			message: 'hi'
		});
		expect(parseChatRequest({ resume: true, conversation: ID }, 100)).toEqual({ kind: 'resume', conversation: ID });
		expect(parseChatRequest({ message: 'x', conversation: null }, 100)).toMatchObject({ conversation: null });
	});

	it('lets resume win over a message, as the reference does', () => {
		expect(parseChatRequest({ resume: true, message: 'ignored', conversation: ID }, 100)).toEqual({
			kind: 'resume',
			conversation: ID
		});
	});

	it('checks size on the trimmed message', () => {
		expect(() => parseChatRequest({ message: 'x'.repeat(101) }, 100)).toThrow(/at most 100/);
		expect(parseChatRequest({ message: ` ${'x'.repeat(100)} ` }, 100)).toMatchObject({ kind: 'message' });
	});

	it('carries a chosen model on a message or a resume', () => {
		expect(parseChatRequest({ message: 'hi', model: 'vllm/Qwen/Qwen3-8B' }, 100)).toEqual({
			kind: 'message',
			conversation: null,
			message: 'hi',
			model: 'vllm/Qwen/Qwen3-8B'
		});
		expect(parseChatRequest({ resume: true, conversation: ID, model: 'ollama/qwen3' }, 100)).toEqual({ kind: 'resume', conversation: ID, model: 'ollama/qwen3' });
	});

	it.each([
		[{ message: 'hi', model: 'qwen3' }, 'Invalid field "model": expected <provider>/<model>'],
		[{ message: 'hi', model: 7 }, 'Invalid field "model"'],
		[{ message: 'hi', model: `a/${'b'.repeat(256)}` }, 'Invalid field "model"'],
		[{ cancel: true, conversation: ID, model: 'ollama/qwen3' }, 'not a cancel'],
		[{ conversation: ID, decisions: [{ toolCallId: 'c', action: 'approve' }], model: 'ollama/qwen3' }, '"decisions" goes with "conversation" alone']
	])('refuses a model where it does not belong or in the wrong form: %j', (body, message) => {
		expect(() => parseChatRequest(body, 100)).toThrow(message);
	});

	it.each([null, [], 'hi', 3, true])('refuses a body that is not an object: %j', (body) => {
		expect(() => parseChatRequest(body, 100)).toThrow('Request body must be a JSON object');
	});
});

describe('POST /api/chat body: edit and regenerate', () => {
	it('accepts an edit with its new text and a regenerate alone, each with ifBusy', () => {
		expect(parseChatRequest({ conversation: ID, editOf: 'm1', message: ' again ', ifBusy: 'enqueue' }, 100)).toEqual({
			kind: 'edit',
			conversation: ID,
			editOf: 'm1',
			message: 'again',
			ifBusy: 'enqueue'
		});
		expect(parseChatRequest({ conversation: ID, regenerate: 'run-1' }, 100)).toEqual({ kind: 'regenerate', conversation: ID, messageId: 'run-1' });
		expect(parseChatRequest({ conversation: ID, regenerate: 'run-1', message: '  ' }, 100)).toMatchObject({ kind: 'regenerate' });
	});

	it.each([
		[{ editOf: 'm1', message: 'x' }, 'A conversation is required to edit'],
		[{ regenerate: 'm1' }, 'A conversation is required to regenerate'],
		[{ conversation: 'nope', editOf: 'm1', message: 'x' }, 'Invalid Conversation ID'],
		[{ conversation: ID, editOf: 'm1' }, 'Message is required'],
		[{ conversation: ID, editOf: 'm1', message: '   ' }, 'Message is required'],
		[{ conversation: ID, regenerate: 'm1', message: 'why' }, 'A regenerate takes no message'],
		[{ conversation: ID, editOf: 'm1', regenerate: 'm2', message: 'x' }, 'Give editOf or regenerate, not both'],
		[{ conversation: ID, editOf: 'm1', message: 'x', resume: true }, 'A resume cannot edit or regenerate'],
		[{ conversation: ID, editOf: '', message: 'x' }, 'Invalid field "editOf"'],
		[{ conversation: ID, regenerate: 7 }, 'Invalid field "regenerate"'],
		[{ conversation: ID, regenerate: 'm1', decisions: [{ toolCallId: 'c', action: 'approve' }] }, '"decisions" goes with "conversation" alone']
	])('refuses %j', (body, message) => {
		expect(() => parseChatRequest(body, 100)).toThrow(message);
	});

	it('checks the edit\'s text size as a message\'s', () => {
		expect(() => parseChatRequest({ conversation: ID, editOf: 'm1', message: 'x'.repeat(101) }, 100)).toThrow(
			expect.objectContaining({ code: 'MESSAGE_TOO_LARGE' })
		);
	});
});

describe('parseUuid', () => {
	it.each([ID, ` ${ID} `, ID.toUpperCase()])('accepts %s', (v) => expect(parseUuid(v)).toBe(ID));
	it.each(['', 'not-a-uuid', '../../etc/passwd', `${ID}x`, ID.replace('4b9e', '0b9e'), ID.replace('9d7f', '7d7f'), 42, null])(
		'refuses %j',
		(v) => expect(parseUuid(v)).toBeNull()
	);
});

describe('POST /api/chat attachments', () => {
	const attachments = [{ server: 'docs', uri: 'file:///notes/a.txt' }];

	it('carries them on a new message only', () => {
		expect(parseChatRequest({ message: 'read this', attachments }, 100)).toEqual({ kind: 'message', conversation: null, message: 'read this', attachments });
		expect(parseChatRequest({ message: 'read this' }, 100)).not.toHaveProperty('attachments');
	});

	it.each([
		[{ message: 'x', attachments: [] }, 'Invalid field "attachments"'],
		[{ message: 'x', attachments: [{ server: 'a.b', uri: 'file:///x' }] }, 'Invalid field "attachments.0.server"'],
		[{ message: 'x', attachments: [{ server: 'docs', uri: 'relative/path' }] }, 'Invalid field "attachments.0.uri": expected an absolute URI'],
		[{ message: 'x', attachments: [{ server: 'docs', uri: 'file:///x', text: 'smuggled' }] }, 'Invalid field "attachments.0"'],
		[{ message: 'x', attachments: Array.from({ length: 9 }, () => attachments[0]) }, 'Invalid field "attachments"'],
		[{ resume: true, conversation: ID, attachments }, 'attached to a new message only'],
		[{ cancel: true, conversation: ID, attachments }, 'attached to a new message only'],
		[{ conversation: ID, editOf: 'm1', message: 'x', attachments }, 'attached to a new message only'],
		[{ conversation: ID, regenerate: 'm1', attachments }, 'attached to a new message only'],
		[{ conversation: ID, decisions: [{ toolCallId: 'c', action: 'approve' }], attachments }, '"decisions" goes with "conversation" alone']
	])('refuses %j', (body, message) => {
		expect(() => parseChatRequest(body, 100)).toThrow(message);
	});
});
