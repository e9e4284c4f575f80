import { EventEmitter } from 'node:events';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { isAbandoned, SessionRegistry, type Session } from '../../../servers/tool-host/session-registry';

describe('tool host sessions', () => {
	it.each([
		['a request open, however long ago the last ended', { open: 1, lastSeen: 0 }, false],
		['nothing open, for less than the idle period', { open: 0, lastSeen: 9_001 }, false],
		['nothing open, for the idle period', { open: 0, lastSeen: 9_000 }, true],
		['nothing open, for longer', { open: 0, lastSeen: 0 }, true]
	])('%s', (_name, session, abandoned) => {
		expect(isAbandoned(session, 10_000, 1_000)).toBe(abandoned);
	});

	it('counts a response as open until it closes, then idles from the close', async () => {
		let now = 100;
		const registry = new SessionRegistry(1_000, () => {}, () => now);
		const closed: string[] = [];
		const server = { close: async () => void closed.push('s1') } as unknown as Session['server'];
		registry.add('s1', { child: 'memory', transport: {} as Session['transport'], server });
		const session = registry.get('s1')!;
		const stream = new EventEmitter() as unknown as http.ServerResponse;
		registry.track(session, stream);
		expect(session).toMatchObject({ open: 1, lastSeen: 100 });
		now = 5_000;
		stream.emit('close');
		expect(session).toMatchObject({ open: 0, lastSeen: 5_000 });
		expect(registry.countFor('memory')).toBe(1);
		expect(registry.countFor('fetch')).toBe(0);
		await registry.closeAll();
		expect(closed).toEqual(['s1']);
		expect(registry.countFor('memory')).toBe(0);
	});
});
