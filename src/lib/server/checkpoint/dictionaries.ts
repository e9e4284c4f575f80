// The preset deflate dictionaries of blob.ts's encodings. Part of the file format: a value written
// with one can only be read with it byte for byte, so a dictionary that has shipped is never edited
// (test/unit/checkpoint/blob.test.ts holds their digests); a better one is a new encoding.
//
// Deflate finds a match anywhere in the dictionary, but a run of bytes in the same order as the
// value matches in one piece, and a nearer match is cheaper: the templates below follow the key
// order the serialisers write (@langchain/core 1.x, LangGraph's checkpoint v4), most common last.

/** LangChain message and LangGraph checkpoint vocabulary, in key orders of its own. */
export const DICTIONARY_V1 = Buffer.from(
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

const message = (type: string) => `{"lc":1,"type":"constructor","id":["langchain_core","messages","${type}"],"kwargs":{`;
/** What Sophos records with each answer (models/model-call.ts). */
const modelCall = (provider: string) =>
	`"sophos":{"model":"${provider}/","run":"","usage":{"inputTokens":0,"outputTokens":0,"firstTokenMs":0,"durationMs":0,"tokensPerSecond":0}}},`;

/**
 * V1, then every message and checkpoint part in the order it is written: a tool's answer; an
 * OpenAI-compatible answer's tool calls and metadata; an Ollama answer's metadata; an answer's
 * opening and a user message (one of each every turn); channel maps, metadata and the skeleton
 * (three of each every turn). On a chat of 300-word answers it stores log items 6% and checkpoint
 * rows 14% smaller than V1 (bench/chat-storage.ts).
 */
export const DICTIONARY_V2 = Buffer.concat([
	DICTIONARY_V1,
	Buffer.from(
		[
			message('ToolMessage'),
			'"content":"","name":"","tool_call_id":"","status":"success","additional_kwargs":{},"response_metadata":{},"id":""}}',
			'"additional_kwargs":{"tool_calls":[{"index":0,"id":"call_","type":"function","function":{"name":"","arguments":"{}"}}]},',
			'"response_metadata":{"model_provider":"openai","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0},',
			'"timing_ms":{"total":0.0,"first_token":0.0},',
			modelCall('openai'),
			'"tool_calls":[{"name":"","args":{},"id":"","type":"tool_call"}],"invalid_tool_calls":[],',
			'"response_metadata":{"model_provider":"ollama","model":"","created_at":"2026-01-01T00:00:00.000Z","done":true,',
			'"done_reason":"stop","total_duration":0,"load_duration":0,"prompt_eval_count":0,"prompt_eval_duration":0,',
			'"eval_count":0,"eval_duration":0,',
			modelCall('ollama'),
			'"tool_calls":[],"invalid_tool_calls":[],',
			'"usage_metadata":{"input_tokens":0,"output_tokens":0,"total_tokens":0,"input_token_details":{},"output_token_details":{}}}}',
			message('AIMessage'),
			'"id":"","name":{"lc":2,"type":"undefined"},"content":"","additional_kwargs":{},',
			message('HumanMessage'),
			'"content":"","id":"","additional_kwargs":{},"response_metadata":{}}}',
			'{"messages":{"s":[[1,1]]},"__pregel_tasks":{"s":[]},"branch:to:tools":{"v":["json","\\"agent\\""]}}',
			'{"messages":{"s":[[1,1]]},"__start__":{"l":[1,1,1,"{\\"messages\\":[","]}"]},"__pregel_tasks":{"s":[]}}',
			'{"messages":{"s":[[1,1]]},"__pregel_tasks":{"s":[]},"branch:to:agent":{"v":["json","null"]}}',
			'{"source":"input","step":-1,"parents":{}}{"source":"loop","step":1,"parents":{}}',
			'{"v":4,"ts":"2026-01-01T00:00:00.000Z","channel_versions":{"__start__":1,"messages":1,"branch:to:agent":1,',
			'"branch:to:tools":1},"versions_seen":{"__input__":{},"__start__":{"__start__":1},"agent":{"branch:to:agent":1},',
			'"tools":{"branch:to:tools":1}}}'
		].join('')
	)
]);
