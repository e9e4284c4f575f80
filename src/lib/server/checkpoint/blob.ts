// How stored bytes are encoded (the `encoding` column of items, writes and checkpoints).
//
// Most stored values are small JSON documents made of the same vocabulary: serialised LangChain
// messages (`{"lc":1,"type":"constructor","id":["langchain_core","messages",…` is ~100 bytes of a
// 190-byte human message) and checkpoint bookkeeping (channel versions, metadata). Plain deflate
// cannot shrink a 200-byte value much; deflate with a preset dictionary of that vocabulary
// shrinks it 3-5×, and still compresses tool results (web pages, files) 2-3×.
//
// The dictionary is part of the file format: ENCODING.DICTIONARY_V1 values can only be read
// with DICTIONARY_V1 exactly as it is. A better dictionary is a new encoding number.

import { deflateRawSync, inflateRawSync } from 'node:zlib';

export const ENCODING = {
	RAW: 0,
	/** deflate-raw, no dictionary (written before DICTIONARY_V1 existed; still read). */
	DEFLATE: 1,
	/** deflate-raw with DICTIONARY_V1. */
	DICTIONARY_V1: 2
} as const;

export type Encoding = (typeof ENCODING)[keyof typeof ENCODING];

/** Below this, deflate's own framing outweighs any saving. */
const COMPRESS_MIN_BYTES = 24;

// LangChain message serialisation (@langchain/core 1.x), LangGraph checkpoint and metadata keys,
// and the channel map of channel-map.ts. Later bytes are cheaper to refer to: most common last.
const DICTIONARY_V1 = Buffer.from(
	[
		'"usage_metadata":{"input_tokens":0,"output_tokens":0,"total_tokens":0,"input_token_details":{},"output_token_details":{}}',
		'"response_metadata":{"model":"","model_provider":"","model_name":"","created_at":"","done":true,"done_reason":"stop",',
		'"total_duration":0,"load_duration":0,"prompt_eval_count":0,"prompt_eval_duration":0,"eval_count":0,"eval_duration":0}',
		'"status":"success","artifact":null,"type":"tool_call"},{"id":"call_',
		'{"source":"input","step":-1,"parents":{}}{"source":"update","step":1,"parents":{},"writes":null}',
		'{"v":4,"ts":"2026-01-01T00:00:00.000Z","id":"","channel_values":{},"channel_versions":{"__start__":1,',
		'"messages":1,"__pregel_tasks":1,"branch:to:agent":1,"branch:to:tools":1},"versions_seen":{"__input__":{},',
		'"__start__":{"__start__":1},"agent":{"branch:to:agent":1},"tools":{"branch:to:tools":1}}}',
		'{"messages":{"s":[[1,1]]},"__pregel_tasks":{"s":[]},"branch:to:agent":{"v":["json","null"]}}',
		'{"source":"loop","step":1,"parents":{}}',
		'{"lc":1,"type":"constructor","id":["langchain_core","messages","SystemMessage"],"kwargs":{"content":"",',
		'{"lc":1,"type":"constructor","id":["langchain_core","messages","ToolMessage"],"kwargs":{"id":"","tool_call_id":"',
		'","name":"","content":"","status":"success","additional_kwargs":{},"response_metadata":{}}}',
		'{"lc":1,"type":"constructor","id":["langchain_core","messages","AIMessage"],"kwargs":{"id":"","content":"",',
		'"tool_calls":[{"id":"","name":"","args":{}}],"invalid_tool_calls":[],"additional_kwargs":{},"response_metadata":{}}}',
		'{"lc":1,"type":"constructor","id":["langchain_core","messages","HumanMessage"],"kwargs":{"id":"","content":"',
		'","additional_kwargs":{},"response_metadata":{}}}'
	].join('')
);

export interface PackedValue {
	value: Uint8Array;
	encoding: Encoding;
}

/** The smaller of the bytes as they are and the bytes with the current dictionary. */
export function pack(bytes: Uint8Array): PackedValue {
	if (bytes.byteLength < COMPRESS_MIN_BYTES) return { value: bytes, encoding: ENCODING.RAW };
	const deflated = encode(bytes, ENCODING.DICTIONARY_V1);
	return deflated.byteLength < bytes.byteLength
		? { value: deflated, encoding: ENCODING.DICTIONARY_V1 }
		: { value: bytes, encoding: ENCODING.RAW };
}

export function encode(bytes: Uint8Array, encoding: Encoding): Uint8Array {
	switch (encoding) {
		case ENCODING.RAW:
			return bytes;
		case ENCODING.DEFLATE:
			return deflateRawSync(bytes);
		case ENCODING.DICTIONARY_V1:
			return deflateRawSync(bytes, { dictionary: DICTIONARY_V1 });
	}
}

export function unpack(value: Uint8Array, encoding: number): Buffer {
	switch (encoding) {
		case ENCODING.RAW:
			return Buffer.from(value.buffer, value.byteOffset, value.byteLength);
		case ENCODING.DEFLATE:
			return inflateRawSync(value);
		case ENCODING.DICTIONARY_V1:
			return inflateRawSync(value, { dictionary: DICTIONARY_V1 });
		default:
			throw new Error(`checkpoint store: unknown value encoding ${encoding}`);
	}
}
