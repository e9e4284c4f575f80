import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadHostConfig } from '../../../servers/tool-host/host-config';

function configFile(content: unknown): string {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tool-host-config-'));
	const file = path.join(dir, 'tool-host.json');
	fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
	return file;
}

describe('tool host config', () => {
	it('expands ${NAME} and ${NAME:-default} in args and env', async () => {
		const file = configFile({
			memory: { command: 'node', args: ['${DIR}/index.js'], env: { MEMORY_FILE_PATH: '${MEM}', LEVEL: '${LEVEL:-info}' } }
		});
		expect(await loadHostConfig(file, { DIR: '/srv', MEM: '/data/memory.jsonl' })).toEqual({
			memory: { command: 'node', args: ['/srv/index.js'], env: { MEMORY_FILE_PATH: '/data/memory.jsonl', LEVEL: 'info' } }
		});
	});

	it.each([
		[{ memory: { command: 'node', url: 'http://x' } }, 'memory: Unrecognized key: "url"'],
		[{ memory: { args: [] } }, 'memory.command'],
		[{ 'bad name': { command: 'node' } }, 'server names may hold letters, digits, _ and -'],
		[{}, 'names no server'],
		['{not json', 'Failed to load tool host configuration'],
		[{ memory: { command: 'node', env: { MEMORY_FILE_PATH: '${MEM}' } } }, 'memory.env.MEMORY_FILE_PATH uses ${MEM}, which is not set']
	])('refuses %j', async (content, message) => {
		await expect(loadHostConfig(configFile(content), {})).rejects.toThrow(message);
	});
});
