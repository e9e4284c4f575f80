// LangGraph's messagesStateReducer, but O(new messages) when a step only appends.
//
// Why: messagesStateReducer coerces every message of the history and builds an id Map at every
// call, and LangGraph calls it about six times per agent ⇄ tools turn (once per write, once more
// per conditional edge, which reads the state with the node's writes applied). At 4,000 messages
// that is ≈ 1 ms per call, so a turn grew with the length of the conversation.
//
// How: every array this reducer returns is registered with an id index (id → position). Arrays
// that extend one another by appending share one index, and an entry, once set, never changes, so
// for every registered array R: index.get(R[i].id) === i for all i < R.length. An id is in R
// exactly when its entry points inside R at a message with that id. Appending new messages to a
// registered array is then O(new messages); an unregistered array that holds the same message
// objects as a registered one (the state a checkpointer hands back at the start of a run) costs a
// comparison of references to join it. Anything else (a removal, a replacement by id, a
// message-like that is not a message, an array this reducer did not return) goes to
// messagesStateReducer itself, so the result is always the one it would have returned.
//
// Like messagesStateReducer, messages without an id get one in place. Registered arrays are
// assumed not to be mutated, as LangGraph requires of state values; a change of length is
// detected and falls back to the full reducer.

import { BaseMessage, BaseMessageChunk, RemoveMessage } from '@langchain/core/messages';
import { messagesStateReducer, type Messages } from '@langchain/langgraph';
import { v4 as uuid } from '@langchain/core/utils/uuid';

interface Registration {
	/** Shared by every array of one append lineage; entries are only ever added. */
	index: Map<string, number>;
	length: number;
}

const registered = new WeakMap<readonly BaseMessage[], Registration>();
/** Registered arrays by their last message, to recognise a copy of one (see copyOfRegistered). */
const byLastMessage = new WeakMap<BaseMessage, BaseMessage[]>();

export function appendMessagesReducer(left: Messages, right: Messages): BaseMessage[] {
	const registration = Array.isArray(left)
		? (registered.get(left as BaseMessage[]) ?? copyOfRegistered(left))
		: undefined;
	if (registration !== undefined && registration.length === (left as BaseMessage[]).length) {
		const appended = appendOnly(left as BaseMessage[], registration.index, right);
		if (appended !== undefined) return appended;
	}
	const result = messagesStateReducer(left, right);
	register(result, new Map(), 0);
	return result;
}

/** `left` followed by `right`, when every message of `right` is new; undefined otherwise. */
function appendOnly(left: BaseMessage[], index: Map<string, number>, right: Messages): BaseMessage[] | undefined {
	const incoming = Array.isArray(right) ? right : [right];
	const added: BaseMessage[] = [];
	const addedIds = new Set<string>();
	for (const item of incoming) {
		const message = toMessage(item);
		if (message === undefined || RemoveMessage.isInstance(message)) return undefined;
		const id = message.id as string;
		const at = index.get(id);
		const inLeft = at !== undefined && at < left.length && left[at]!.id === id;
		if (inLeft || addedIds.has(id)) return undefined;
		addedIds.add(id);
		added.push(message);
	}
	const result = left.concat(added);
	// An id a sibling array (same prefix, another suffix) placed elsewhere keeps its entry, so
	// such a result gets an index of its own.
	if (!register(result, index, left.length)) register(result, new Map(), 0);
	return result;
}

/**
 * The registration of a registered array that `left` is an element-for-element copy of, now
 * shared with `left`. A thread's state read back from the checkpointer at the start of a run is
 * such a copy when the saver's item cache hands out the message objects it was given: comparing
 * references is far cheaper than coercing and indexing the history again.
 */
function copyOfRegistered(left: readonly unknown[]): Registration | undefined {
	const last = left[left.length - 1];
	const original = BaseMessage.isInstance(last) ? byLastMessage.get(last) : undefined;
	const registration = original === undefined ? undefined : registered.get(original);
	if (registration === undefined || registration.length !== original!.length || original!.length !== left.length) {
		return undefined;
	}
	for (let i = 0; i < left.length; i += 1) if (left[i] !== original![i]) return undefined;
	registered.set(left as BaseMessage[], registration);
	return registration;
}

/**
 * A message as messagesStateReducer would coerce it, with an id; undefined for message-likes
 * (strings, tuples, plain objects), which are left to messagesStateReducer.
 */
function toMessage(item: unknown): BaseMessage | undefined {
	if (!BaseMessage.isInstance(item)) return undefined;
	// A chunk becomes a message of its non-chunk class: one-message call of the reducer itself.
	if (BaseMessageChunk.isInstance(item)) return messagesStateReducer([], [item])[0];
	if (item.id === null || item.id === undefined) {
		item.id = uuid();
		item.lc_kwargs.id = item.id;
	}
	return item;
}

/**
 * Index messages[from..] (the rest is in the index already) and register the array; false, and
 * nothing registered, when an id already has another position (a duplicate id, possible only in
 * a state this reducer did not produce, or an id a sibling placed elsewhere).
 */
function register(messages: BaseMessage[], index: Map<string, number>, from: number): boolean {
	for (let i = from; i < messages.length; i += 1) {
		const id = messages[i]!.id;
		if (typeof id !== 'string') return false;
		const at = index.get(id);
		if (at === undefined) index.set(id, i);
		else if (at !== i) return false;
	}
	registered.set(messages, { index, length: messages.length });
	if (messages.length > 0) byLastMessage.set(messages[messages.length - 1]!, messages);
	return true;
}
