import type { ToolMessage } from '@langchain/core/messages';
import type { ToolCall } from '@langchain/core/messages/tool';
import type { TraceNote } from '../../protocol';
import type { AnswerPiece } from './answer-stream';
import { messageText, reusedFromOf } from './messages';

/** Pure: turns what the graph's steps write to LangGraph's `custom` stream into the run's token, reasoning and trace events. */

export type AgentEvent =
	| { type: 'token'; text: string }
	| { type: 'reasoning'; text: string }
	| { type: 'trace'; note: TraceNote };

/**
 * What a step writes through `config.writer` as it goes: an agent step the pieces of its answer (once
 * per network read) and then its tool calls, a tools step its results. `name` is the model's.
 */
export type StepWrite =
	| { node: 'agent'; step: number; name: string; messageId: string; pieces: AnswerPiece[] }
	| { node: 'agent'; step: number; name: string; messageId: string; calls: ToolCall[] }
	| { node: 'tools'; step: number; results: ToolMessage[] };

/**
 * Follows the steps of one run's stream: a step's first write is preceded by its `enter` trace and
 * the previous step's `leave`. Call `end` when the stream ends, for the last step's `leave`.
 */
export class AgentEvents {
	private current: { step: number; node: string; name: string } | null = null;

	of(write: StepWrite): AgentEvent[] {
		const out: AgentEvent[] = [];
		const { step, node } = write;
		if (!this.current || step > this.current.step) {
			if (this.current && this.current.node !== node) out.push(this.leave(this.current));
			const name = write.node === 'agent' ? write.name : (write.results[0]?.name ?? '');
			this.current = { step, node, name };
			// An agent step's `enter` names the id its answer will have in the thread.
			out.push(trace({ step, name, node, event: 'enter', ...(write.node === 'agent' ? { data: { messageId: write.messageId } } : {}) }));
		}
		if ('pieces' in write) {
			for (const piece of write.pieces) out.push(piece);
		} else if ('calls' in write) {
			for (const call of write.calls) {
				out.push(
					trace({ step, name: call.name, node: 'tools', event: 'call', data: { name: call.name, arguments: call.args, tool_call_id: call.id } })
				);
			}
		} else {
			for (const message of write.results) {
				if (!message.name || !message.tool_call_id) continue;
				const reusedFrom = reusedFromOf(message);
				out.push(
					trace({
						step,
						name: message.name,
						node: 'tools',
						event: 'result',
						data: {
							name: message.name,
							tool_call_id: message.tool_call_id,
							status: message.status ?? 'success',
							result: messageText(message.content),
							...(reusedFrom ? { reusedFrom } : {})
						}
					})
				);
			}
		}
		return out;
	}

	end(): AgentEvent[] {
		return this.current ? [this.leave(this.current)] : [];
	}

	private leave(c: { step: number; node: string; name: string }): AgentEvent {
		return trace({ step: c.step, name: c.name, node: c.node, event: 'leave' });
	}
}

const trace = (note: TraceNote): AgentEvent => ({ type: 'trace', note });
