import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama, type Script } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service, tempDir } from '../support/service';
import { openServiceDb } from '../support/service-db';
import { followRun } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/**
 * Kills the service (SIGKILL, from inside, via SOPHOS_CRASH_AT) at every named point of a run that
 * makes a write that is not safe to repeat (test__effect) and a read that is (test__peek), starts
 * it again, resumes, and checks what a user must be able to rely on.
 */
const script: Script = (request) => {
	const steps = currentTurn(request).after.filter((m) => m.role === 'assistant').length;
	if (steps === 0) return { content: 'Saving it.', toolCalls: [{ name: 'test__effect', arguments: { item: 'a' } }] };
	if (steps === 1) return { toolCalls: [{ name: 'test__peek', arguments: {} }] };
	return { content: 'All done.' };
};

const CASES = [
	'after-run-insert',
	'mid-model-stream',
	'before-tool-call',
	'before-tool-call:2',
	'after-tool-side-effect',
	'after-tool-side-effect:2',
	'before-checkpoint',
	'before-checkpoint:3',
	'before-checkpoint:4',
	'after-final-checkpoint',
	'before-finish-run'
];

type Row = Record<string, string | number>;
const table: Row[] = [];

describe('crash matrix', () => {
	let ollama: ScriptedOllama;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(script);
	});
	afterAll(async () => {
		await ollama.close();
		console.log(`\nCrash matrix (SOPHOS_CRASH_AT, SIGKILL, restart, resume)\n${formatTable(table)}`);
	});

	it.each(CASES)('%s', async (point) => {
		const config = testMcpConfig();
		const dataDir = tempDir();
		const crashing = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, dataDir, env: { SOPHOS_CRASH_AT: point } });
		let conversation: string | undefined;
		let answered = 'no';
		try {
			const res = await crashing.post('/api/chat', { message: 'do it' });
			conversation = (await res.json()).conversation;
			answered = 'yes';
		} catch {
			// The crash came before the answer: the client saw the connection drop.
		}
		await crashing.crashed();
		expect(crashing.child.signalCode).toBe('SIGKILL');

		const service = await crashing.restart({ SOPHOS_CRASH_AT: '' });
		try {
			conversation ??= (await (await service.fetch('/api/conversations')).json()).conversations[0]?.id;
			expect(conversation).toBeDefined();
			const before = await (await service.fetch(`/api/conversations/${conversation}`)).json();
			let resumed = 'no';
			if (before.resumable) {
				expect((await service.post('/api/chat', { conversation, resume: true })).status).toBe(200);
				expect((await followRun(service.url, conversation!)).at(-1)?.event).toBe('end');
				resumed = 'yes';
			}
			const after = await (await service.fetch(`/api/conversations/${conversation}`)).json();
			const runs = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs as {
				status: string;
				usage: { calls: number; outputTokens: number };
			}[];

			// Every run row ends in a terminal status.
			expect(runs.every((r) => r.status !== 'running')).toBe(true);
			// The thread ends complete, and the user's message was not lost (nor doubled).
			expect(after.resumable).toBe(false);
			expect(after.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'All done.' });
			expect(after.messages.filter((m: { role: string; content: string }) => m.role === 'user' && m.content === 'do it')).toHaveLength(1);
			// Usage is counted once per answer, wherever the crash fell: the runs' totals are exactly the
			// answers' own, and every answer of the finished thread has its call recorded.
			const answers = after.messages.filter((m: { role: string }) => m.role === 'assistant') as { model?: string; usage?: { outputTokens: number } }[];
			expect(answers.every((m) => m.model === 'ollama/qwen3' && m.usage !== undefined)).toBe(true);
			expect(runs.reduce((n, r) => n + r.usage.calls, 0)).toBe(answers.length);
			expect(runs.reduce((n, r) => n + r.usage.outputTokens, 0)).toBe(answers.reduce((n, m) => n + m.usage!.outputTokens, 0));

			await service.stop();
			const db = await openServiceDb(dataDir);
			const journal = await db.all<{ tool: string; key: string; attempts: number; outcome: string }>(
				'SELECT tool, idempotency_key AS key, attempts, outcome FROM tool_calls'
			);
			await db.close();
			const calls = config.calls();
			const callsOf = (key: string) => calls.filter((l) => l.split(' ')[1] === key).length;
			for (const entry of journal) {
				// A call is made at most once per recorded attempt: none runs again once its outcome is recorded.
				expect(callsOf(entry.key)).toBeLessThanOrEqual(entry.attempts);
				expect(entry.key).toBe(`${conversation}:${entry.key.split(':')[1]}`);
				// The write that is not safe to repeat never takes effect twice for one key.
				if (entry.tool === 'test__effect') expect(callsOf(entry.key)).toBeLessThanOrEqual(1);
			}
			table.push({
				'crash point': point,
				'POST answered': answered,
				'after restart': before.conversation.status,
				resumed,
				runs: runs.map((r) => r.status).join(' < '),
				'effect calls': calls.filter((l) => l.startsWith('effect')).length,
				'peek calls': calls.filter((l) => l.startsWith('peek')).length,
				'effect result': after.messages.find((m: { name?: string }) => m.name === 'test__effect')?.status ?? '-',
				messages: after.messages.length
			});
		} finally {
			await service.stop();
		}
	});
});

function formatTable(rows: Row[]): string {
	if (!rows.length) return '(no rows)';
	const keys = Object.keys(rows[0]!);
	const width = (k: string) => Math.max(k.length, ...rows.map((r) => String(r[k]).length));
	const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(width(keys[i]!))).join(' | ')} |`;
	return [line(keys), line(keys.map((k) => '-'.repeat(width(k)))), ...rows.map((r) => line(keys.map((k) => String(r[k]))))].join('\n');
}
