import { describe, expect, it } from 'vitest';
import { parseStreamEvent } from '../../../src/lib/protocol';

describe('parseStreamEvent', () => {
	it('reads each event kind the server sends, with its id', () => {
		expect(parseStreamEvent('token', '"Hi"', '3')).toEqual({ event: 'token', id: 3, data: 'Hi' });
		expect(parseStreamEvent('reasoning', '"hmm"', '4')).toEqual({ event: 'reasoning', id: 4, data: 'hmm' });
		const trace = { step: 1, name: 'qwen3', node: 'agent', event: 'enter' };
		expect(parseStreamEvent('trace', JSON.stringify(trace), '1')).toEqual({ event: 'trace', id: 1, data: trace });
		expect(parseStreamEvent('warning', '{"code":"TOOLS_UNAVAILABLE","message":"m","servers":["fetch"]}', '1')).toEqual({
			event: 'warning',
			id: 1,
			data: { code: 'TOOLS_UNAVAILABLE', message: 'm', servers: ['fetch'] }
		});
		expect(parseStreamEvent('end', '{"conversation":"c","run":"r","status":"cancelled","cause":"X"}', '9')).toEqual({
			event: 'end',
			id: 9,
			data: { conversation: 'c', run: 'r', status: 'cancelled', cause: 'X' }
		});
		expect(parseStreamEvent('ping', '""', '9')).toEqual({ event: 'ping', id: null, data: '' });
	});

	it('reads the single-frame answers sent when no run is live', () => {
		expect(parseStreamEvent('end', '{"conversation":"c","status":null}', '')).toEqual({
			event: 'end',
			id: null,
			data: { conversation: 'c', status: null }
		});
		expect(parseStreamEvent('chat-error', '{"code":"BAD_REQUEST","message":"Invalid Conversation ID"}', '')).toEqual({
			event: 'chat-error',
			id: null,
			data: { code: 'BAD_REQUEST', message: 'Invalid Conversation ID' }
		});
	});

	it('rejects what does not match: the stream is input too', () => {
		expect(parseStreamEvent('token', 'not json', '1')).toBeNull();
		expect(parseStreamEvent('token', '{"a":1}', '1')).toBeNull();
		expect(parseStreamEvent('trace', '{"step":"1","name":"x","node":"y","event":"enter"}', '1')).toBeNull();
		expect(parseStreamEvent('trace', '{"step":1,"name":"x","node":"y","event":"explode"}', '1')).toBeNull();
		expect(parseStreamEvent('end', '{"conversation":"c","status":"exploded"}', '1')).toBeNull();
		expect(parseStreamEvent('message', '"x"', '1')).toBeNull();
	});

	it('treats a missing or odd id as none', () => {
		expect(parseStreamEvent('token', '"a"', '')).toMatchObject({ id: null });
		expect(parseStreamEvent('token', '"a"', '1e3')).toMatchObject({ id: null });
		expect(parseStreamEvent('token', '"a"', '0')).toMatchObject({ id: null });
	});

	it('fills a chat-error that lacks a code or message', () => {
		expect(parseStreamEvent('chat-error', '{}', '2')).toEqual({
			event: 'chat-error',
			id: 2,
			data: { code: 'UNKNOWN_ERROR', message: 'Unknown error.' }
		});
	});
});
