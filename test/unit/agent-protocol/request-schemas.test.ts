import { describe, expect, it } from 'vitest';
import { humanText, HumanContentSchema } from '../../../src/lib/server/agent-protocol/human-content';
import {
	parseProtocolBody,
	ThreadCreateSchema,
	ThreadSearchSchema
} from '../../../src/lib/server/agent-protocol/request-schemas';
import { parseThreadId, refuseUnsupported, requireAssistant } from '../../../src/lib/server/agent-protocol/protocol-request';
import { ApiError } from '../../../src/lib/server/errors';
import { joinStreamQueryOf, JoinStreamQuerySchema } from '../../../src/lib/server/agent-protocol/run-create';

function refusal(fn: () => unknown): ApiError {
	try {
		fn();
	} catch (e) {
		if (e instanceof ApiError) return e;
		throw e;
	}
	throw new Error('expected a refusal');
}

describe('protocol bodies', () => {
	it('refuses a bad field with VALIDATION_FAILED naming it', () => {
		const e = refusal(() => parseProtocolBody(ThreadSearchSchema, { limit: 0 }));
		expect(e.code).toBe('VALIDATION_FAILED');
		expect(e.status).toBe(422);
		expect(e.message).toContain('"limit"');
		expect(refusal(() => parseProtocolBody(ThreadCreateSchema, { threadid: 'x' })).message).toContain('threadid');
		expect(refusal(() => parseProtocolBody(ThreadCreateSchema, { thread_id: 'not-a-uuid' })).message).toContain('thread_id');
	});

	it('takes what the SDK sends, null for an option left out', () => {
		expect(parseProtocolBody(ThreadSearchSchema, { limit: 10, offset: 0, metadata: { graph_id: 'agent' }, status: null })).toEqual({
			limit: 10,
			offset: 0,
			metadata: { graph_id: 'agent' },
			status: null
		});
	});

	it('refuses with 501 a field Sophos does not do that a body sets, not one left null', () => {
		const e = refusal(() => refuseUnsupported({ ttl: 5, supersteps: null, metadata: {} }, ['supersteps', 'ttl'], 'POST /threads'));
		expect(e.code).toBe('NOT_IMPLEMENTED');
		expect(e.status).toBe(501);
		expect(e.message).toContain('"ttl" in POST /threads');
		expect(() => refuseUnsupported({ supersteps: null }, ['supersteps'], 'POST /threads')).not.toThrow();
	});

	it('takes a thread id in any case and the assistant by its uuid or graph id, refusing others', () => {
		expect(parseThreadId('0B8F4B1E-3F7A-4C3B-9D2E-1A2B3C4D5E6F')).toBe('0b8f4b1e-3f7a-4c3b-9d2e-1a2b3c4d5e6f');
		expect(refusal(() => parseThreadId('nope')).message).toContain('"thread_id"');
		expect(() => requireAssistant('agent')).not.toThrow();
		expect(refusal(() => requireAssistant('other')).code).toBe('NOT_FOUND');
	});
});

describe('human content', () => {
	it('takes a string or text blocks, refuses an image or a file with its own code', () => {
		expect(humanText(HumanContentSchema.parse('hi'))).toBe('hi');
		expect(humanText(HumanContentSchema.parse([{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }]))).toBe('ab');
		const image = refusal(() => humanText(HumanContentSchema.parse([{ type: 'text', text: 'a' }, { type: 'image_url', image_url: 'x' }])));
		expect(image.code).toBe('UNSUPPORTED_CONTENT');
		expect(image.message).toContain('image_url');
		expect(refusal(() => humanText(HumanContentSchema.parse([{ type: 'file', data: 'x' }]))).status).toBe(422);
	});
});

describe('a joined stream query', () => {
	const read = (query: string) => parseProtocolBody(JoinStreamQuerySchema, joinStreamQueryOf(new URLSearchParams(query)));

	it('takes stream_mode once, repeated, or as the JSON array SDK 1.0.0 sends', () => {
		expect(read('stream_mode=values').stream_mode).toBe('values');
		expect(read('stream_mode=values&stream_mode=updates').stream_mode).toEqual(['values', 'updates']);
		expect(read(`stream_mode=${encodeURIComponent('["messages-tuple","values"]')}`).stream_mode).toEqual(['messages-tuple', 'values']);
		expect(read('cancel_on_disconnect=1').cancel_on_disconnect).toBe(true);
	});

	it('refuses a mode it does not know, or a broken array, naming stream_mode', () => {
		for (const query of ['stream_mode=debug', `stream_mode=${encodeURIComponent('["debug"]')}`, 'stream_mode=%5Bvalues', `stream_mode=${encodeURIComponent('{"a":1}')}`]) {
			expect(refusal(() => read(query)).message).toContain('stream_mode');
		}
	});
});
