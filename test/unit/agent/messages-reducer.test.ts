// appendMessagesReducer returns what LangGraph's messagesStateReducer returns, for random
// sequences of appends, replacements by id, removals, REMOVE_ALL, chunks, message-likes, id-less
// messages and branching (an older state reduced again), and does not walk the history to append.

import {
	AIMessage,
	AIMessageChunk,
	HumanMessage,
	RemoveMessage,
	ToolMessage,
	type BaseMessage,
	type BaseMessageLike
} from '@langchain/core/messages';
import { REMOVE_ALL_MESSAGES, messagesStateReducer, type Messages } from '@langchain/langgraph';
import { describe, expect, it } from 'vitest';
import { appendMessagesReducer } from '../../../src/lib/server/agent/messages-reducer.js';

type Kind = 'human' | 'ai' | 'tool' | 'chunk' | 'remove' | 'removeAll' | 'string' | 'tuple' | 'object';
interface Spec {
	kind: Kind;
	id?: string;
	/** Unique per spec: tells which input a result message came from. */
	label: string;
}

/** Fresh objects for a spec, so each reducer gets its own inputs (both assign ids in place). */
function build(spec: Spec): BaseMessage | BaseMessageLike {
	const { kind, id, label } = spec;
	switch (kind) {
		case 'human':
			return new HumanMessage({ id, content: label });
		case 'ai':
			return new AIMessage({ id, content: label, tool_calls: [{ id: `call-${label}`, name: 't', args: {} }] });
		case 'tool':
			return new ToolMessage({ id, content: label, tool_call_id: `call-${label}` });
		case 'chunk':
			return new AIMessageChunk({ id, content: label });
		case 'remove':
			return new RemoveMessage({ id: id ?? 'missing' });
		case 'removeAll':
			return new RemoveMessage({ id: REMOVE_ALL_MESSAGES });
		case 'string':
			return label;
		case 'tuple':
			return ['human', label];
		case 'object':
			return { type: 'ai', content: label, ...(id === undefined ? {} : { id }) };
	}
}

/** What a result is, independent of object identity and of randomly generated ids. */
function canonical(messages: BaseMessage[], givenIds: ReadonlySet<string>) {
	const ids = messages.map((m) => m.id);
	expect(new Set(ids).size).toBe(ids.length);
	return messages.map((m) => [
		m.constructor.name,
		m.content,
		givenIds.has(m.id ?? '') ? m.id : typeof m.id === 'string' && m.id.length > 0 ? 'generated' : m.id,
		m.lc_kwargs.id === m.id
	]);
}

function outcome(run: () => BaseMessage[], givenIds: ReadonlySet<string>) {
	try {
		const result = run();
		return { result, view: canonical(result, givenIds) };
	} catch (e) {
		return { error: (e as Error).message };
	}
}

/** Deterministic pseudo-random numbers (mulberry32), so a failure can be replayed by seed. */
function random(seed: number) {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const KINDS: Kind[] = ['human', 'human', 'ai', 'ai', 'tool', 'tool', 'chunk', 'remove', 'removeAll', 'string', 'tuple', 'object'];

describe('appendMessagesReducer', () => {
	it('matches messagesStateReducer on random sequences, including branches', () => {
		let labels = 0;
		for (let seed = 1; seed <= 300; seed += 1) {
			const next = random(seed);
			const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
			const idPool = Array.from({ length: 4 + Math.floor(next() * 12) }, (_, i) => `m${i}`);
			const givenIds = new Set(idPool);
			// Mostly appends of fresh ids, as an agent does; now and then anything.
			const spec = (): Spec => {
				const label = `x${(labels += 1)}`;
				const kind = next() < 0.6 ? pick(['human', 'ai', 'tool'] as Kind[]) : pick(KINDS);
				const id = next() < 0.15 ? undefined : next() < 0.7 ? `fresh-${label}` : pick(idPool);
				return { kind, id, label };
			};
			const ours: BaseMessage[][] = [[]];
			const theirs: BaseMessage[][] = [[]];
			for (let step = 0; step < 40; step += 1) {
				const roll = next();
				// The latest state usually; an older one (a fork, or LangGraph's local read of a
				// conditional edge reducing the same state twice) sometimes.
				const from = roll < 0.75 ? ours.length - 1 : Math.floor(next() * ours.length);
				if (roll > 0.97) {
					// In-place mutation of a state: both must see the same array.
					const extra = spec();
					ours[from]!.push(build({ ...extra, kind: 'human' }) as BaseMessage);
					theirs[from]!.push(build({ ...extra, kind: 'human' }) as BaseMessage);
				}
				const specs = Array.from({ length: 1 + Math.floor(next() * 3) }, spec);
				const single = specs.length === 1 && next() < 0.3;
				const input = (): Messages => (single ? build(specs[0]!) : specs.map(build)) as Messages;
				// A copy of a state, as a checkpointer that shares message objects returns it; now and
				// then with one message swapped for another (same last message, different contents).
				const copy = next() < 0.2;
				const swapAt = next() < 0.3 ? Math.floor(next() * (ours[from]!.length - 1)) : -1;
				const swapWith = spec();
				const left = (states: BaseMessage[][]) => {
					if (!copy) return states[from]!;
					const copied = [...states[from]!];
					if (swapAt >= 0) copied[swapAt] = build({ ...swapWith, kind: 'human' }) as BaseMessage;
					return copied;
				};
				const a = outcome(() => appendMessagesReducer(left(ours), input()), givenIds);
				const b = outcome(() => messagesStateReducer(left(theirs), input()), givenIds);
				expect({ seed, step, ...a, result: undefined }).toEqual({ seed, step, ...b, result: undefined });
				if (a.result && b.result) {
					ours.push(a.result);
					theirs.push(b.result);
				}
			}
		}
	});

	it('keeps the ids it assigned: a message without id is appended once and can be replaced', () => {
		const first = appendMessagesReducer([], [new HumanMessage('hi')]);
		const id = first[0]!.id!;
		expect(id).toMatch(/^[0-9a-f-]{36}$/);
		const second = appendMessagesReducer(first, [new AIMessage({ id: 'a', content: 'hello' })]);
		const replaced = appendMessagesReducer(second, [new HumanMessage({ id, content: 'hi again' })]);
		expect(replaced.map((m) => m.content)).toEqual(['hi again', 'hello']);
		expect(appendMessagesReducer(replaced, [new RemoveMessage({ id })]).map((m) => m.id)).toEqual(['a']);
	});

	it('appends to a state it returned, or a copy of one, without reading the earlier messages', () => {
		let state = appendMessagesReducer(
			[],
			Array.from({ length: 1000 }, (_, i) => new HumanMessage({ id: `h${i}`, content: `${i}` }))
		);
		let reads = 0;
		const watched = new Proxy(state[500]!, {
			get: (target, key, receiver) => ((reads += 1), Reflect.get(target, key, receiver)),
			has: (target, key) => ((reads += 1), Reflect.has(target, key))
		});
		state = appendMessagesReducer(state.with(500, watched), []);
		reads = 0;
		for (let i = 0; i < 100; i += 1) {
			const reply = new AIMessage({ id: `a${i}`, content: `${i}` });
			// As LangGraph does for a conditional edge: the same state reduced twice with the same write.
			appendMessagesReducer(state, [reply]);
			state = appendMessagesReducer(state, [reply]);
		}
		// A copy of the state (the same message objects), as the checkpoint saver returns it.
		state = appendMessagesReducer([...state], [new HumanMessage({ id: 'after-copy', content: '' })]);
		expect(reads).toBe(0);
		expect(state).toHaveLength(1101);
		expect(state[500]).toBe(watched);
	});
});
