import { describe, expect, it } from 'vitest';
import { canonicalArgsHash } from '../../../src/lib/server/tools/canonical-args';
import { derivedCallId, isEntryOf } from '../../../src/lib/server/tools/journal-key';
import type { JournalEntry } from '../../../src/lib/server/storage/journal-records';

const entry: JournalEntry = {
	threadId: 't',
	toolCallId: 'call_0',
	runId: 'r',
	step: 3,
	tool: 'memory__create_entities',
	argsHash: canonicalArgsHash({ name: 'edited' }),
	callHash: canonicalArgsHash({ name: 'a', tags: [1, 2] }),
	idempotencyKey: 't:call_0',
	messageId: 'ai-1',
	attempts: 1,
	outcome: 'success',
	result: 'done'
};
const call: { name: string; args: Record<string, unknown> } = { name: 'memory__create_entities', args: { tags: [1, 2], name: 'a' } };
const at: { step: number; messageId: string | null } = { step: 3, messageId: 'ai-1' };

// Issue 21, item 3: an entry answers only the call it was made for.
describe('isEntryOf', () => {
	it.each<[string, Partial<JournalEntry>, Partial<typeof call>, Partial<typeof at>, boolean]>([
		['the same call (keys in another order)', {}, {}, {}, true],
		['the same call, its message unknown to one side', { messageId: null }, {}, {}, true],
		['another tool under the same id', {}, { name: 'memory__delete_entities' }, {}, false],
		['another step under the same id', {}, {}, { step: 5 }, false],
		['another message under the same id', {}, {}, { messageId: 'ai-2' }, false],
		['other arguments under the same id', {}, { args: { name: 'b' } }, {}, false],
		['the person edited the arguments: matched on the model\'s', {}, {}, {}, true],
		['an entry from before callHash, matched on its arguments', { callHash: null, argsHash: canonicalArgsHash(call.args) }, {}, {}, true],
		['an entry from before callHash, other arguments', { callHash: null }, {}, {}, false]
	])('%s: %s', (_name, e, c, a, expected) => {
		expect(isEntryOf({ ...entry, ...e }, { ...call, ...c }, { ...at, ...a })).toBe(expected);
	});
});

describe('derivedCallId', () => {
	it('is the same on every attempt, and differs by message and position', () => {
		expect(derivedCallId('call_0', 1, at)).toBe(derivedCallId('call_0', 1, { ...at, step: 9 }));
		expect(derivedCallId('call_0', 1, at)).not.toBe(derivedCallId('call_0', 2, at));
		expect(derivedCallId('call_0', 1, at)).not.toBe(derivedCallId('call_0', 1, { ...at, messageId: 'ai-2' }));
		expect(derivedCallId('call_0', 1, { step: 3, messageId: null })).not.toBe(derivedCallId('call_0', 1, { step: 4, messageId: null }));
		expect(derivedCallId('call_0', 1, at)).toMatch(/^call_0~[0-9a-f]{12}$/);
	});
});
