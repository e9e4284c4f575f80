// The memory server saves its whole graph on every change: concurrent runs that write to Sophos's
// own child must not lose each other's writes (mcp/write-turns.ts).

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { loadMcpConfig } from '../../src/lib/server/mcp/mcp-config';
import { Toolbox } from '../../src/lib/server/mcp/toolbox';
import { ROOT, tempDir } from '../support/service';

let toolbox: Toolbox | undefined;
afterEach(() => toolbox?.close());

it('forty writes sent at once to the memory server all land', async () => {
	const dir = tempDir('sophos-memory-');
	const memoryFile = path.join(dir, 'memory.jsonl');
	const config = await loadMcpConfig(path.join(ROOT, 'config/mcp.json'), { MEMORY_FILE_PATH: memoryFile });
	toolbox = new Toolbox({ memory: config.memory! }, { toolTimeoutMs: 60_000, maxResultChars: 1_000_000, approval: 'none', log: () => {} });
	await toolbox.start();
	await toolbox.definitions();
	const create = toolbox.resolve('memory__create_entities')!;
	const read = toolbox.resolve('memory__read_graph')!;
	const names = Array.from({ length: 40 }, (_, i) => `entity-${i}`);
	const outcomes = await Promise.all(
		names.map((name, i) =>
			toolbox!.call(create, { entities: [{ name, entityType: 'test', observations: [`number ${i}`] }] }, { idempotencyKey: `t:${name}` })
		)
	);
	expect(outcomes.every((o) => o.status === 'success')).toBe(true);
	const graph = await toolbox.call(read, {}, { idempotencyKey: 't:read' });
	const stored = fs.readFileSync(memoryFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l).name);
	expect(stored.sort()).toEqual([...names].sort());
	for (const name of names) expect(graph.text).toContain(name);
});
