// The shape of src/: no import cycle anywhere, and the runtime's imports run one way, from a layer
// to the ones below it (scripts/import-graph.ts names the layers), with the two engines apart.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph, layerViolations } from '../../../scripts/import-graph';

const root = path.resolve(import.meta.dirname, '../../..');
const rel = (file: string) => path.relative(root, file);

describe('the import graph of src/', () => {
	const graph = importGraph();

	it('reads every module and its imports', () => {
		expect(graph.size).toBeGreaterThan(100);
		const runtime = [...graph.keys()].find((f) => f.endsWith('src/lib/server/runtime.ts'));
		expect(runtime && [...graph.get(runtime)!].map(rel)).toContain('src/lib/server/storage/engine.ts');
	});

	it('has no cycle', () => {
		expect(cycles(graph).map((c) => c.map(rel))).toEqual([]);
	});

	it('imports only downward, each engine only the contract', () => {
		const { upward, unplaced } = layerViolations(graph);
		expect(upward.map(([a, b]) => `${rel(a)} → ${rel(b)}`)).toEqual([]);
		expect(unplaced).toEqual([]);
	});

	it('finds a cycle and an upward import when there is one', () => {
		const a = path.join(root, 'src/lib/server/storage/a.ts');
		const b = path.join(root, 'src/lib/server/sqlite/b.ts');
		const c = path.join(root, 'src/lib/server/postgres/c.ts');
		const fake = new Map([
			[a, new Set([b])],
			[b, new Set([a, c])],
			[c, new Set<string>()]
		]);
		expect(cycles(fake)).toHaveLength(1);
		expect(layerViolations(fake).upward.map(([x, y]) => `${rel(x)} → ${rel(y)}`)).toEqual([
			'src/lib/server/storage/a.ts → src/lib/server/sqlite/b.ts',
			'src/lib/server/sqlite/b.ts → src/lib/server/postgres/c.ts'
		]);
	});
});
