// `npx tsx scripts/import-graph.ts`: the import graph of src/ (type-only imports included, since a
// cycle through types is still two modules that cannot be read apart), its cycles, and the
// imports that run against the layer order of src/lib/server (see LAYERS). Exits 1 on either.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const src = path.join(root, 'src');

/**
 * The runtime's folders from the bottom up: a module may import its own folder and any folder
 * below it, never one above. Files directly in src/lib/server/ are named by their file name.
 */
export const LAYERS: readonly (readonly string[])[] = [
	['protocol'],
	['telemetry'],
	['errors', 'config-file', 'private-files', 'crash-points', 'event-loop-share', 'secrets', 'canonical-json'],
	['checkpoint', 'stream'],
	['storage'],
	['sqlite', 'postgres'],
	['engine', 'portable'],
	['models', 'mcp', 'elicitation'],
	['agent', 'approvals', 'branches', 'tools'],
	['runs'],
	['conversations', 'readiness'],
	['agent-protocol'],
	['http'],
	['settings'],
	['runtime', 'runtime-close', 'runtime-config', 'runtime-instance', 'shutdown']
];

/** Folders of one layer that never import each other: an engine imports the contract, never the other engine. */
export const APART: readonly (readonly string[])[] = [['sqlite', 'postgres']];

const EXT = ['.ts', '.js', '.svelte', '.mjs'];

function walk(dir: string, out: string[] = []): string[] {
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) walk(full, out);
		else if (EXT.includes(path.extname(entry.name)) && !entry.name.endsWith('.d.ts')) out.push(full);
	}
	return out;
}

function resolveImport(from: string, spec: string): string | null {
	let base: string;
	if (spec.startsWith('$lib/')) base = path.join(src, 'lib', spec.slice(5));
	else if (spec === '$lib') base = path.join(src, 'lib');
	else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec);
	else return null;
	const stripped = base.replace(/\.(js|ts)$/, '');
	for (const candidate of [base, `${stripped}.ts`, `${stripped}.js`, path.join(base, 'index.ts'), path.join(base, 'index.js')]) {
		if (fs.existsSync(candidate) && fs.statSync(candidate).isFile()) return candidate;
	}
	return null;
}

const IMPORT = /(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export type ImportGraph = Map<string, Set<string>>;

export function importGraph(): ImportGraph {
	const graph: ImportGraph = new Map();
	for (const file of walk(src)) {
		const text = fs.readFileSync(file, 'utf8');
		const deps = new Set<string>();
		for (const m of text.matchAll(IMPORT)) {
			const target = resolveImport(file, (m[1] ?? m[2])!);
			if (target && target !== file) deps.add(target);
		}
		graph.set(file, deps);
	}
	return graph;
}

/** Tarjan's strongly connected components of more than one module. */
export function cycles(graph: ImportGraph): string[][] {
	let index = 0;
	const stack: string[] = [];
	const meta = new Map<string, { index: number; low: number; onStack: boolean }>();
	const found: string[][] = [];
	function visit(v: string): void {
		meta.set(v, { index, low: index, onStack: true });
		index++;
		stack.push(v);
		for (const w of graph.get(v) ?? []) {
			if (!meta.has(w)) {
				visit(w);
				meta.get(v)!.low = Math.min(meta.get(v)!.low, meta.get(w)!.low);
			} else if (meta.get(w)!.onStack) meta.get(v)!.low = Math.min(meta.get(v)!.low, meta.get(w)!.index);
		}
		if (meta.get(v)!.low === meta.get(v)!.index) {
			const component: string[] = [];
			let w: string;
			do {
				w = stack.pop()!;
				meta.get(w)!.onStack = false;
				component.push(w);
			} while (w !== v);
			if (component.length > 1) found.push(component);
		}
	}
	for (const v of graph.keys()) if (!meta.has(v)) visit(v);
	return found;
}

function layerName(file: string): string | null {
	const rel = path.relative(src, file).split(path.sep);
	if (rel[0] === 'lib' && rel[1] === 'protocol') return 'protocol';
	if (rel[0] !== 'lib' || rel[1] !== 'server') return null;
	if (rel[2] === 'storage' && rel[3] === 'engine.ts') return 'engine';
	return rel.length === 3 ? rel[2]!.replace(/\.ts$/, '') : rel[2]!;
}

function layerOf(file: string): { name: string; at: number | null } | null {
	const name = layerName(file);
	if (name === null) return null;
	const at = LAYERS.findIndex((names) => names.includes(name));
	return at === -1 ? { name, at: null } : { name, at };
}

/** Imports from a layer to one above it or between folders kept APART, and runtime modules whose folder has no layer. */
export function layerViolations(graph: ImportGraph): { upward: [string, string][]; unplaced: string[] } {
	const upward: [string, string][] = [];
	const unplaced = new Set<string>();
	for (const [from, deps] of graph) {
		const a = layerOf(from);
		if (!a) continue;
		if (a.at === null) unplaced.add(a.name);
		for (const to of deps) {
			const b = layerOf(to);
			if (!b) continue;
			if (b.at === null) unplaced.add(b.name);
			else if (a.at !== null && b.at > a.at) upward.push([from, to]);
			else if (APART.some((pair) => pair.includes(a.name) && pair.includes(b.name) && a.name !== b.name)) upward.push([from, to]);
		}
	}
	return { upward, unplaced: [...unplaced] };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const graph = importGraph();
	const rel = (f: string) => path.relative(root, f);
	const found = cycles(graph);
	const { upward, unplaced } = layerViolations(graph);
	const edges = [...graph.values()].reduce((n, d) => n + d.size, 0);
	console.log(`${graph.size} modules, ${edges} imports`);
	console.log(`cycles: ${found.length}`);
	for (const c of found) console.log(`  ${c.map(rel).join(' ↔ ')}`);
	console.log(`imports against the layer order: ${upward.length}`);
	for (const [a, b] of upward) console.log(`  ${rel(a)} → ${rel(b)}`);
	if (unplaced.length) console.log(`folders without a layer: ${unplaced.join(', ')}`);
	process.exit(found.length || upward.length || unplaced.length ? 1 : 0);
}
