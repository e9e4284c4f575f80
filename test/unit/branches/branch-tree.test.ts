import { describe, expect, it } from 'vitest';
import { divergences, firstHolding, parentsOf, pathTo, sharedPrefix, tipsOf } from '../../../src/lib/server/branches/branch-tree';
import { canonicalJson } from '../../../src/lib/server/canonical-json';
import { canonicalArgsHash } from '../../../src/lib/server/tools/canonical-args';

// c1 → c2 → c3 → c4 (the first branch); c2 → c5 → c6 (an edit); c3 → c7 (a regenerate); r2 a root
// left by retention with its own chain r2 → r3.
const lineage = [
	{ id: 'c1', parent: null },
	{ id: 'c2', parent: 'c1' },
	{ id: 'c3', parent: 'c2' },
	{ id: 'c4', parent: 'c3' },
	{ id: 'c5', parent: 'c2' },
	{ id: 'c6', parent: 'c5' },
	{ id: 'c7', parent: 'c3' },
	{ id: 'r2', parent: null },
	{ id: 'r3', parent: 'r2' }
];

describe('branch tree', () => {
	it('finds the tips, oldest first, and the path to any checkpoint', () => {
		expect(tipsOf(lineage)).toEqual(['c4', 'c6', 'c7', 'r3']);
		const parents = parentsOf(lineage);
		expect(pathTo(parents, 'c6')).toEqual(['c1', 'c2', 'c5', 'c6']);
		expect(pathTo(parents, 'c7')).toEqual(['c1', 'c2', 'c3', 'c7']);
		expect(pathTo(parents, 'r3')).toEqual(['r2', 'r3']);
		expect(pathTo(parents, 'gone')).toEqual([]);
	});

	it('stops at a parent the lineage no longer holds, and never loops', () => {
		expect(pathTo(new Map([['a', 'pruned']]), 'a')).toEqual(['a']);
		expect(pathTo(new Map([['a', 'b'], ['b', 'a']]), 'a')).toEqual(['b', 'a']);
	});

	it('lists, per position of the active branch, every message branches sharing what comes before hold there', () => {
		const active = { tip: 't1', ids: ['u1', 'a1', 'u2', 'a2'] };
		const branches = [
			active,
			{ tip: 't2', ids: ['u1', 'a1', 'u2b', 'a2b'] },
			{ tip: 't3', ids: ['u1', 'a1', 'u2', 'a2c'] },
			{ tip: 't4', ids: ['u1', 'a1b'] },
			{ tip: 't5', ids: ['u1', 'a1', 'u2b', 'a2d'] },
			// A prefix of the active branch (a fork whose first step is not written) adds nothing.
			{ tip: 't6', ids: ['u1', 'a1'] }
		];
		const found = divergences(active, branches);
		expect([...found.keys()].sort()).toEqual([1, 2, 3]);
		expect(found.get(1)).toEqual(new Map([['a1', 't1'], ['a1b', 't4']]));
		expect(found.get(2)).toEqual(new Map([['u2', 't1'], ['u2b', 't2']]));
		expect(found.get(3)).toEqual(new Map([['a2', 't1'], ['a2c', 't3']]));
	});

	it('has no divergences for a thread of one branch', () => {
		const only = { tip: 't', ids: ['u1', 'a1'] };
		expect(divergences(only, [only]).size).toBe(0);
	});

	it.each([
		[[false, false, true, true, true], 2],
		[[true, true], 0],
		[[false, false], -1],
		[[], -1]
	])('finds the first checkpoint holding a message by bisection: %j → %i', async (holds, expected) => {
		const path = holds.map((_, i) => `c${i}`);
		const asked: string[] = [];
		const first = await firstHolding(path, async (id) => {
			asked.push(id);
			return holds[path.indexOf(id)]!;
		});
		expect(first).toBe(expected);
		expect(asked.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(path.length + 1)));
	});

	it('gallops from a known start: a message written just after it costs a read or two on a long branch', async () => {
		const path = Array.from({ length: 5000 }, (_, i) => `c${i}`);
		for (const [start, answer] of [[4000, 4001], [4000, 4000], [0, 4999], [10, 9999]] as const) {
			const asked: string[] = [];
			const first = await firstHolding(path, async (id) => (asked.push(id), Number(id.slice(1)) >= answer), start);
			expect(first).toBe(answer < path.length ? answer : -1);
			if (answer - start <= 1) expect(asked.length).toBeLessThanOrEqual(2);
			expect(asked.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(path.length + 1)));
		}
	});

	it('measures the prefix paths share', () => {
		expect(sharedPrefix([['a', 'b', 'c'], ['a', 'b', 'd'], ['a', 'b']])).toBe(2);
		expect(sharedPrefix([['r'], ['s']])).toBe(0);
		expect(sharedPrefix([])).toBe(0);
	});
});

describe('canonical tool arguments', () => {
	it('hashes equal arguments alike whatever their key order, at every depth', () => {
		const a = { item: 'a', options: { z: 1, y: [{ b: 2, a: 1 }] } };
		const b = { options: { y: [{ a: 1, b: 2 }], z: 1 }, item: 'a' };
		expect(canonicalJson(a)).toBe('{"item":"a","options":{"y":[{"a":1,"b":2}],"z":1}}');
		expect(canonicalArgsHash(a)).toBe(canonicalArgsHash(b));
	});

	it('tells apart arguments that differ in a value, an array order or a key', () => {
		const base = canonicalArgsHash({ item: 'a', list: [1, 2] });
		expect(canonicalArgsHash({ item: 'b', list: [1, 2] })).not.toBe(base);
		expect(canonicalArgsHash({ item: 'a', list: [2, 1] })).not.toBe(base);
		expect(canonicalArgsHash({ item: 'a', list: [1, 2], more: null })).not.toBe(base);
	});
});
