// Pure encode/decode decisions of the checkpoint store, without a database.

import { describe, expect, it } from 'vitest';
import {
	COPY_INLINE_MAX,
	fromInline,
	inheritEntry,
	planChannels,
	toInline
} from '../../../src/lib/server/checkpoint/channel-map.js';
import {
	itemsToWrite,
	planLogWrite,
	segmentsAfter,
	totalLength,
	type Segment
} from '../../../src/lib/server/checkpoint/segments.js';
import { parseCheckpointRetention } from '../../../src/lib/server/checkpoint/retention-plan';

const K = 16;

describe('planLogWrite', () => {
	const parent: Segment[] = [[7, 10]];

	it('appends the suffix to the log the parent ends in', () => {
		const plan = planLogWrite({ parentSegments: parent, extendsParent: true, childLength: 13, tipLength: 10, maxSegments: K });
		expect(plan).toEqual({ kind: 'append', logId: 7, from: 10 });
		expect(itemsToWrite(plan, parent, 13)).toEqual({ start: 10, end: 13 });
		expect(segmentsAfter(plan, parent, 13)).toEqual([[7, 13]]);
	});

	it('reuses the parent segments when nothing was appended', () => {
		const plan = planLogWrite({ parentSegments: parent, extendsParent: true, childLength: 10, tipLength: 10, maxSegments: K });
		expect(plan).toEqual({ kind: 'reuse' });
		expect(itemsToWrite(plan, parent, 10)).toEqual({ start: 10, end: 10 });
		expect(segmentsAfter(plan, parent, 10)).toEqual([[7, 10]]);
	});

	it('copies the whole value when the parent is not a prefix (e.g. after RemoveMessage)', () => {
		const plan = planLogWrite({ parentSegments: parent, extendsParent: false, childLength: 9, tipLength: 10, maxSegments: K });
		expect(plan).toEqual({ kind: 'copy' });
		expect(itemsToWrite(plan, parent, 9)).toEqual({ start: 0, end: 9 });
		expect(segmentsAfter(plan, parent, 9, 8)).toEqual([[8, 9]]);
	});

	it('copies when the child is shorter, whatever the caller found', () => {
		const plan = planLogWrite({ parentSegments: parent, extendsParent: true, childLength: 4, tipLength: 10, maxSegments: K });
		expect(plan).toEqual({ kind: 'copy' });
	});

	it('copies when there is no parent log, and an empty copy needs no log', () => {
		const plan = planLogWrite({ extendsParent: false, childLength: 0, maxSegments: K });
		expect(plan).toEqual({ kind: 'copy' });
		expect(segmentsAfter(plan, undefined, 0)).toEqual([]);
	});

	it('branches into a new log when the parent log has grown past the parent (a fork)', () => {
		const plan = planLogWrite({ parentSegments: parent, extendsParent: true, childLength: 12, tipLength: 15, maxSegments: K });
		expect(plan).toEqual({ kind: 'branch' });
		expect(itemsToWrite(plan, parent, 12)).toEqual({ start: 10, end: 12 });
		expect(segmentsAfter(plan, parent, 12, 9)).toEqual([[7, 10], [9, 2]]);
	});

	it('copies instead of branching once a value would span more than maxSegments', () => {
		const many: Segment[] = Array.from({ length: K }, (_, i) => [i + 1, 1] as const);
		const plan = planLogWrite({ parentSegments: many, extendsParent: true, childLength: K + 1, tipLength: 2, maxSegments: K });
		expect(plan).toEqual({ kind: 'copy' });
		expect(segmentsAfter(plan, many, K + 1, 99)).toEqual([[99, K + 1]]);
	});

	it('branches from an empty parent value into a single segment', () => {
		const plan = planLogWrite({ parentSegments: [], extendsParent: true, childLength: 2, maxSegments: K });
		expect(plan).toEqual({ kind: 'branch' });
		expect(segmentsAfter(plan, [], 2, 3)).toEqual([[3, 2]]);
	});

	it('counts the items of a value across segments', () => {
		expect(totalLength([[1, 4], [2, 3]])).toBe(7);
	});
});

describe('planChannels', () => {
	const parent = {
		id: 'p',
		map: { messages: { s: [[1, 3] as const] }, small: { v: ['json', '1'] as const }, big: { r: 'origin' } },
		versions: { messages: 3, small: 1, big: 2 }
	};

	it('stores channels named in newVersions', () => {
		const plan = planChannels(['messages'], { messages: 4 }, { messages: 4 }, parent);
		expect(plan).toEqual({ inherited: {}, changed: ['messages'], unresolved: [] });
	});

	it('inherits channels at the parent version: segments, small values copied, references kept direct', () => {
		const plan = planChannels(['messages', 'small', 'big'], { messages: 3, small: 1, big: 2 }, {}, parent);
		expect(plan.inherited).toEqual({ messages: { s: [[1, 3]] }, small: { v: ['json', '1'] }, big: { r: 'origin' } });
		expect(plan.changed).toEqual([]);
	});

	it('leaves channels unresolved when unchanged per newVersions but not held by the parent at that version', () => {
		expect(planChannels(['big'], { big: 5 }, {}, parent).unresolved).toEqual(['big']);
		expect(planChannels(['foo'], { foo: 1 }, {}, undefined).unresolved).toEqual(['foo']);
	});

	it('stores unversioned channels (LangGraph keeps __pregel_tasks without a version)', () => {
		expect(planChannels(['__pregel_tasks'], {}, {}, undefined).changed).toEqual(['__pregel_tasks']);
	});
});

describe('inheritEntry and inline values', () => {
	it('references a large value in the row that stores it instead of copying it', () => {
		const large = { v: ['json', JSON.stringify('x'.repeat(COPY_INLINE_MAX))] as const };
		expect(inheritEntry(large, 'p')).toEqual({ r: 'p' });
	});

	it('round-trips json as text and other serde types as base64', () => {
		const json = toInline('json', Buffer.from('{"a":"é"}'));
		expect(json).toEqual(['json', '{"a":"é"}']);
		expect(Buffer.from(fromInline(json)).toString()).toBe('{"a":"é"}');
		const bytes = toInline('bytes', new Uint8Array([0, 255, 10]));
		expect(bytes[0]).toBe('bytes');
		expect([...fromInline(bytes)]).toEqual([0, 255, 10]);
	});
});

describe('parseCheckpointRetention', () => {
	it('accepts all (default) and latest:<N>', () => {
		expect(parseCheckpointRetention(undefined)).toEqual({ kind: 'all' });
		expect(parseCheckpointRetention('all')).toEqual({ kind: 'all' });
		expect(parseCheckpointRetention(' latest:25 ')).toEqual({ kind: 'latest', keep: 25 });
	});

	it('refuses anything else with the setting name in the message', () => {
		for (const bad of ['latest:0', 'latest:', 'latest:-1', 'keep:3', 'latest:2.5']) {
			expect(() => parseCheckpointRetention(bad)).toThrow(/CHECKPOINT_RETENTION/);
		}
	});
});
