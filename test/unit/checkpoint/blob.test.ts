// The value encodings (checkpoint/blob.ts): what is written now, and that every encoding a release
// ever wrote still reads back to its bytes. Both engines store values through these functions.

import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CURRENT_ENCODING, ENCODING, encode, pack, unpack } from '../../../src/lib/server/checkpoint/blob.js';
import { encodeCheckpoint, skeletonBytes } from '../../../src/lib/server/checkpoint/row-encoding.js';
import { DICTIONARY_V1, DICTIONARY_V2 } from '../../../src/lib/server/checkpoint/dictionaries.js';

const HUMAN =
	'{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"content":"What is the capital of France?",' +
	'"id":"2324821e-d87b-427a-b599-6a4a71dad18f","additional_kwargs":{},"response_metadata":{}}}';

// An answer as the thread stores it after an Ollama call (the keys in the order LangChain writes them).
const ANSWER =
	'{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"e4e42831-0cfd-4a18-b344-2bf83c75bf17",' +
	'"name":{"lc":2,"type":"undefined"},"content":"Paris.","additional_kwargs":{},"response_metadata":{"model_provider":"ollama",' +
	'"model":"qwen3","created_at":"2026-12-02T17:23:14.545Z","done":true,"done_reason":"stop","total_duration":1000000,' +
	'"load_duration":100000,"prompt_eval_count":20,"prompt_eval_duration":200000,"eval_count":28,"eval_duration":700000,' +
	'"sophos":{"model":"ollama/qwen3","run":"2324821e-d87b-427a-b599-6a4a71dad18f","usage":{"inputTokens":20,"outputTokens":28,' +
	'"firstTokenMs":0.3,"durationMs":1,"tokensPerSecond":40000}}},"tool_calls":[],"invalid_tool_calls":[],"usage_metadata":' +
	'{"input_tokens":20,"output_tokens":28,"total_tokens":48,"input_token_details":{},"output_token_details":{}}}}';

const SKELETON =
	'{"v":4,"ts":"2026-12-02T17:23:14.599Z","channel_versions":{"__start__":4,"messages":3,"branch:to:agent":3},' +
	'"versions_seen":{"__input__":{},"__start__":{"__start__":1},"agent":{"branch:to:agent":2}}}';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('value encodings', () => {
	it('keeps each dictionary byte for byte: a value written with one reads only with it', () => {
		expect(sha256(DICTIONARY_V1)).toBe('e77e44ce926d4104076ba49af24a49dc0e6508ee17ce44f5d2e7c9839a10d730');
		expect(sha256(DICTIONARY_V2)).toBe('a93eef0dd5a8ba8da0a0400c961d812d90b1f351d5b400ad402a4fb854cd65bb');
	});

	it('reads values as the releases before DICTIONARY_V2 wrote them', () => {
		// Written by pack() and encode(…, DEFLATE) of the release before (0182693).
		const v1 =
			'o53jEI4Kz0gsUcgsVijJSFVITizILEnMUchPU3ADZbtUe1ihZWRsZGJhZJiqm2JhnqRrYmSeqJtkammpa5ZokmhumJKYYmiRRrL3AA==';
		const deflated =
			'PY2xasMwFEV/xdxZHuw6taOlW+nSuUMo5kZ6sUVsyUgvlBL87yW0dDxnOOeOxcE2Bvq9CSxcikXzzWnKMAge9oSFcXIzQxxdygKDVUrhJAUGb7eV8f2X8Wlw/' +
			'WKeCuz9UVKJCouPmVqFUuksleMWlEuVLtVrZnTy8rdB+9R2Q9tI7Yf+XHdtz/p8OB7rZ3bsG0/fDBcY0PugIUUu4/9rN8hSthSLjKsoPZUPve8/';
		expect(unpack(Buffer.from(v1, 'base64'), ENCODING.DICTIONARY_V1).toString()).toBe(HUMAN);
		expect(unpack(Buffer.from(deflated, 'base64'), ENCODING.DEFLATE).toString()).toBe(HUMAN);
		expect(unpack(Buffer.from(HUMAN), ENCODING.RAW).toString()).toBe(HUMAN);
	});

	it('writes with DICTIONARY_V2, and every encoding round-trips', () => {
		expect(CURRENT_ENCODING).toBe(ENCODING.DICTIONARY_V2);
		const packed = pack(Buffer.from(ANSWER));
		expect(packed.encoding).toBe(ENCODING.DICTIONARY_V2);
		expect(unpack(packed.value, packed.encoding).toString()).toBe(ANSWER);
		for (const encoding of Object.values(ENCODING)) {
			expect(unpack(encode(Buffer.from(HUMAN), encoding), encoding).toString()).toBe(HUMAN);
		}
		// A row's parts share one encoding.
		const row = encodeCheckpoint(Buffer.from(SKELETON), { messages: { s: [[1, 3]] } }, Buffer.from('{"source":"loop","step":1,"parents":{}}'));
		expect(row.encoding).toBe(ENCODING.DICTIONARY_V2);
		expect(skeletonBytes(row).toString()).toBe(SKELETON);
	});

	it('stores messages and skeletons smaller than DICTIONARY_V1 did', () => {
		for (const text of [HUMAN, ANSWER, SKELETON]) {
			const v1 = encode(Buffer.from(text), ENCODING.DICTIONARY_V1).byteLength;
			const v2 = encode(Buffer.from(text), ENCODING.DICTIONARY_V2).byteLength;
			expect(v2, text.slice(0, 80)).toBeLessThan(v1);
		}
	});

	it('leaves short values as they are and refuses an encoding it does not know', () => {
		expect(pack(Buffer.from('null'))).toEqual({ value: Buffer.from('null'), encoding: ENCODING.RAW });
		expect(() => unpack(Buffer.from('x'), 9)).toThrow('unknown value encoding 9');
	});
});
