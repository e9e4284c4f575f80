// What bench/postgres-turns.ts times through the built service: one tool-calling turn (agent →
// tools → agent) as a client makes it, POST /api/chat then the run's SSE stream to its end, on a
// service process per engine, the sides taking turns thread by thread.

import fs from 'node:fs';
import path from 'node:path';
import { Service } from '../../test/support/service';
import { readEvents } from '../../test/support/sse';
import { testServer } from './turn-sides';

export type ServiceSide = { thread(): Promise<number[]>; close(): Promise<void> };

/** A built service (`npm run build`) on the scripted model at `ollamaUrl`; `env` picks its engine. */
export async function serviceSide(options: { ollamaUrl: string; log: string; dir: string; turns: number; env?: Record<string, string> }): Promise<ServiceSide> {
	const configDir = path.join(options.dir, 'config');
	fs.mkdirSync(configDir, { recursive: true });
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ test: { ...testServer(options.log), trusted: true } }));
	fs.writeFileSync(path.join(configDir, 'system.md'), 'You are a benchmark.');
	const service = await Service.start({ ollamaUrl: options.ollamaUrl, dataDir: options.dir, configDir, env: options.env ?? {} });
	return {
		async thread() {
			let conversation: string | undefined;
			const times: number[] = [];
			for (let turn = 0; turn < options.turns; turn++) {
				const started = performance.now();
				const posted = await service.post('/api/chat', { message: `turn ${turn}`, ...(conversation ? { conversation } : {}) });
				if (!posted.ok) throw new Error(`turn ${turn} refused: ${posted.status} ${await posted.text()}`);
				conversation = ((await posted.json()) as { conversation: string }).conversation;
				const events = await readEvents(await service.fetch(`/api/chat?conversation=${conversation}`));
				times.push(performance.now() - started);
				const end = events.at(-1);
				if (end?.event !== 'end' || (end.data as { status?: string }).status !== 'completed' || !events.some((e) => e.event === 'trace' && (e.data as { event?: string }).event === 'result')) {
					throw new Error(`turn ${turn} did not complete with its tool result: ${JSON.stringify(events.slice(-3))}`);
				}
			}
			return times;
		},
		async close() {
			await service.stop();
		}
	};
}
