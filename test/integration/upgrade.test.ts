import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { Service } from '../support/service';
import { followRun } from '../support/sse';
import {
	UPGRADE_MESSAGES,
	fixtureCopy,
	memoryOnlyConfig,
	upgradeManifests,
	upgradeScript,
	type UpgradeManifest
} from '../support/upgrade-scenario';

type Run = { id: string; status: string };
type Detail = UpgradeManifest['api']['details'][string];

/** A run the release was killed in is recorded `interrupted` by the first start after it. */
const recovered = (run: Run) =>
	run.status === 'running'
		? { ...run, status: 'interrupted', error: expect.objectContaining({ code: 'PROCESS_EXITED' }), finishedAt: expect.any(String) }
		: run;

/**
 * The built service started on a database each earlier release left (test/fixtures/upgrade/): the
 * conversations, messages, runs, queue and tool call journal that release reported are all there,
 * the queued message runs, and the run its crash cut short resumes without calling its tool again.
 */
describe('starting on a database of an earlier release', () => {
	let ollama: ScriptedOllama;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(upgradeScript(false));
	});
	afterAll(() => ollama.close());

	for (const manifest of upgradeManifests()) {
		it(`${manifest.name} (${manifest.commit}): nothing is lost and the interrupted run resumes`, async () => {
			const byFirstMessage = (text: string) =>
				Object.keys(manifest.api.details).find((id) => manifest.api.details[id]!.messages[0]?.content === text);
			const finished = byFirstMessage(UPGRADE_MESSAGES.remember)!;
			const interrupted = byFirstMessage(UPGRADE_MESSAGES.interrupted)!;
			const queued = byFirstMessage(UPGRADE_MESSAGES.story);
			const service = await Service.start({ ollamaUrl: ollama.url, dataDir: fixtureCopy(manifest), configDir: memoryOnlyConfig() });
			try {
				const get = async (pathname: string) => (await service.fetch(pathname)).json();
				// The start runs what was queued; its stream ends when that run does.
				if (queued) await followRun(service.url, queued);

				const { conversations } = await get('/api/conversations');
				expect(conversations).toHaveLength(manifest.api.conversations.length);
				for (const old of manifest.api.conversations) {
					const { id, title, createdAt } = old as typeof old & { title: string; createdAt: string };
					expect(conversations.find((c: { id: string }) => c.id === id)).toMatchObject({ id, title, createdAt });
				}

				const finishedDetail = await get(`/api/conversations/${finished}`);
				expect(finishedDetail).toMatchObject(manifest.api.details[finished]!);
				expect(await get(`/api/conversations/${finished}/runs`)).toMatchObject(manifest.api.runs[finished]!);

				const before: Detail = manifest.api.details[interrupted]!;
				expect(await get(`/api/conversations/${interrupted}`)).toMatchObject({ messages: before.messages, resumable: true });
				expect((await get(`/api/conversations/${interrupted}/runs`)).runs).toMatchObject(
					manifest.api.runs[interrupted]!.runs.map(recovered)
				);

				if (queued) {
					const story = await get(`/api/conversations/${queued}`);
					const old = manifest.api.details[queued]!.messages;
					expect(story.messages.slice(0, old.length)).toMatchObject(old);
					expect(story.messages.slice(old.length)).toMatchObject([
						{ role: 'user', content: UPGRADE_MESSAGES.queued },
						{ role: 'assistant', content: `You said: ${UPGRADE_MESSAGES.queued}` }
					]);
					expect(story.queue).toEqual([]);
					const runs = (await get(`/api/conversations/${queued}/runs`)).runs;
					expect(runs.slice(1)).toMatchObject(manifest.api.runs[queued]!.runs.map(recovered));
					expect(runs[0]).toMatchObject({ status: 'completed', trigger: 'message', input: UPGRADE_MESSAGES.queued });
				}

				const resume = await service.post('/api/chat', { conversation: interrupted, resume: true });
				expect(resume.status).toBe(200);
				const events = await followRun(service.url, interrupted);
				expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
				const after = await get(`/api/conversations/${interrupted}`);
				expect(after.messages).toMatchObject([...before.messages, { role: 'assistant', content: 'Noted: Bob plays chess.' }]);
			} finally {
				expect(await service.stop()).toBe(0);
			}

			// The resumed step used the recorded outcome: the journal is as the release left it, and the
			// memory server of this start (an empty memory file) was never asked to remember Bob.
			const db = new Database(path.join(service.options.dataDir, 'sophos.db'), { readonly: true });
			const journal = db.prepare(`SELECT * FROM tool_calls ORDER BY rowid`).all();
			db.close();
			expect(journal).toEqual((manifest.rows.tool_calls ?? []).map((row) => expect.objectContaining(row)));
			const memory = path.join(service.options.dataDir, 'memory.jsonl');
			expect(fs.existsSync(memory) ? fs.readFileSync(memory, 'utf8') : '').not.toContain('Bob');
		});
	}
});
