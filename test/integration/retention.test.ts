import Database from 'better-sqlite3';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { walkthroughScript } from '../support/scripts';
import { Service, TEST_ENGINE } from '../support/service';
import { followRun } from '../support/sse';

const checkpointsOf = async (service: Service, id: string) =>
	(await (await service.fetch(`/api/conversations/${id}/export?format=jsonl`)).text()).trim().split('\n').map((l) => JSON.parse(l));

/**
 * Retention runs once a run has ended, after its terminal event: on PostgreSQL its queries may still
 * be in flight when the client reads, so the thread is read until the prune shows.
 */
const prunedTo = (service: Service, id: string, count: number) =>
	vi.waitFor(
		async () => {
			const kept = await checkpointsOf(service, id);
			expect(kept).toHaveLength(count);
			return kept;
		},
		{ timeout: 20_000, interval: 50 }
	);

/** CHECKPOINT_RETENTION=latest:N prunes finished threads only, and never breaks resume or export. */
describe('checkpoint retention', () => {
	let ollama: ScriptedOllama;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(walkthroughScript({ url: 'https://example.com', fetch: false }));
	});
	afterAll(() => ollama.close());

	it('keeps the newest N checkpoints of a finished thread, gives the space back, and the thread goes on', async () => {
		const service = await Service.start({ ollamaUrl: ollama.url, env: { CHECKPOINT_RETENTION: 'latest:2' } });
		try {
			const { conversation } = await (await service.post('/api/chat', { message: 'first' })).json();
			await followRun(service.url, conversation);
			const kept = await prunedTo(service, conversation, 2);
			expect(kept.map((c) => c.step)).toEqual([6, 7]);
			expect(kept.at(-1)).toMatchObject({ next: [], message_count: 8 });
			const detail = await (await service.fetch(`/api/conversations/${conversation}`)).json();
			expect(detail.messages).toHaveLength(8);
			const md = await (await service.fetch(`/api/conversations/${conversation}/export`)).text();
			expect(md.match(/^## User$/gm)).toHaveLength(1);

			await service.post('/api/chat', { conversation, message: 'second' });
			await followRun(service.url, conversation);
			expect((await (await service.fetch(`/api/conversations/${conversation}`)).json()).messages).toHaveLength(16);
			expect((await prunedTo(service, conversation, 2)).map((c) => c.message_count)).toEqual([15, 16]);

			if (TEST_ENGINE === 'sqlite') {
				// The file gives the pruned pages back; PostgreSQL's autovacuum reclaims them on its own schedule.
				const db = new Database(path.join(service.options.dataDir, 'sophos.db'), { readonly: true });
				expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
				expect(db.pragma('freelist_count', { simple: true })).toBe(0);
				db.close();
			}
		} finally {
			await service.stop();
		}
	});

	it('leaves an interrupted thread whole until its resumed run has finished', async () => {
		ollama.script = walkthroughScript({ url: 'https://example.com', fetch: false, second: { hold: 'cut', holdAfterChunks: 1 } });
		const service = await Service.start({ ollamaUrl: ollama.url, env: { CHECKPOINT_RETENTION: 'latest:1' } });
		let restarted: Service | undefined;
		try {
			const { conversation } = await (await service.post('/api/chat', { message: 'cut me' })).json();
			await ollama.held('cut');
			await service.kill();
			ollama.release('cut');
			restarted = await service.restart();
			expect((await checkpointsOf(restarted, conversation)).map((c) => c.step)).toEqual([-1, 0, 1, 2]);
			await restarted.post('/api/chat', { conversation, resume: true });
			await followRun(restarted.url, conversation);
			const after = await prunedTo(restarted, conversation, 1);
			expect(after[0]).toMatchObject({ step: 7, next: [], message_count: 8 });
		} finally {
			await restarted?.stop();
			await service.stop();
		}
	});
});
