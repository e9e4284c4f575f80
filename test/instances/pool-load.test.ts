// Connection use under load (issue 26): three service processes on one PostgreSQL database, their
// pools and lease heartbeats at the defaults, and fifty runs at once spread over them, each with a
// tool call and followed from another instance. Every run completes and no instance loses a run
// to another: the lease heartbeat, on its own connection, is never queued behind the runs' writes.
// How long checkouts waited is a figure, not an assertion: `npm run bench -- pool-load`.

import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { promtoolCheck, samples } from '../support/prometheus';
import { followRun } from '../support/sse';
import { createTestDatabase, type TestDatabase } from '../support/postgres';
import { testMcpConfig } from '../support/test-config';

const INSTANCES = 3;
const RUNS = 50;

let ollama: ScriptedOllama;
let database: TestDatabase;
const services: Service[] = [];

beforeAll(async () => {
	ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }], { content: 'All quiet.' }));
	database = await createTestDatabase(inject('postgresUrl'), 'poolload');
	const config = testMcpConfig();
	for (let i = 0; i < INSTANCES; i += 1) {
		services.push(
			await Service.start({
				ollamaUrl: ollama.url,
				configDir: config.configDir,
				// MAX_CONCURRENT_RUNS counts the runs of every instance; the default (32) would refuse some.
				env: { DATABASE_URL: database.url, SOPHOS_INSTANCE_ID: `instance-${i}`, MAX_CONCURRENT_RUNS: String(RUNS) }
			})
		);
	}
});
afterAll(async () => {
	for (const s of services) await s.stop();
	await ollama?.close();
	await database?.drop();
});

describe('three instances, fifty runs at once', () => {
	it('completes every run with its tool call, none taken over or fenced, no lease renewal failed', async () => {
		const runs = await Promise.all(
			Array.from({ length: RUNS }, async (_, i) => {
				const owner = services[i % INSTANCES]!;
				const posted = await owner.post('/api/chat', { message: `run ${i}` });
				expect(posted.status).toBe(200);
				const { conversation } = (await posted.json()) as { conversation: string };
				// Read where it does not run: its events come through the database.
				return followRun(services[(i + 1) % INSTANCES]!.url, conversation);
			})
		);
		for (const events of runs) {
			expect(events.at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
			expect(events.filter((e) => e.event === 'trace' && (e.data as { event?: string }).event === 'result')).toHaveLength(1);
		}

		let completed = 0;
		for (const s of services) {
			const text = await (await s.fetch('/api/metrics')).text();
			expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
			expect(samples(text, 'sophos_runs_taken_over_total')).toEqual({ sophos_runs_taken_over_total: 0 });
			expect(samples(text, 'sophos_fenced_writes_refused_total')).toEqual({ sophos_fenced_writes_refused_total: 0 });
			expect(samples(text, 'sophos_lease_renewals_failed_total')).toEqual({ sophos_lease_renewals_failed_total: 0 });
			expect(samples(text, 'sophos_runs_total')).toEqual({ 'sophos_runs_total{status="completed",trigger="message"}': expect.any(Number) });
			completed += samples(text, 'sophos_runs_total')['sophos_runs_total{status="completed",trigger="message"}']!;
			expect(samples(text, 'sophos_db_pool_max_connections')).toEqual({ sophos_db_pool_max_connections: 10 });
			expect(samples(text, 'sophos_db_pool_waiting_clients')).toEqual({ sophos_db_pool_waiting_clients: expect.any(Number) });
			expect(samples(text, 'sophos_db_pool_wait_seconds_count').sophos_db_pool_wait_seconds_count).toBeGreaterThan(0);
		}
		expect(completed).toBe(RUNS);
	});
});
