import os from 'node:os';
import { createTestDatabase, startPostgres } from '../test/support/postgres';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { Service } from '../test/support/service';
import { reportSummary } from './support/summary';

/**
 * The time from an owner's death (SIGKILL) to its run resuming on another instance, for a few
 * RUN_LEASE_MS values: two built services on one PostgreSQL database with AUTO_RESUME=true, a run
 * held mid-answer on the first, which is then killed; the second's runs are read every 10 ms until
 * the auto-resume run appears (taken over, resumed) and until it has completed. The expected
 * bound is the lease plus one heartbeat (lease ÷ 3), as the lease was last renewed before the kill.
 * Run: npx tsx bench/failover.ts [leaseMs…] (needs `npm run build`)
 */
const LEASES = process.argv.slice(2).map(Number);
const leases = LEASES.length ? LEASES : [1_000, 3_000, 10_000];
const REPEAT = 3;

const server = await startPostgres({ settings: { synchronous_commit: 'off' } });
const rows: { lease: number; resumed: number[]; completed: number[] }[] = [];
try {
	for (const lease of leases) {
		const row = { lease, resumed: [] as number[], completed: [] as number[] };
		for (let i = 0; i < REPEAT; i++) {
			let requests = 0;
			const ollama = await ScriptedOllama.start(() =>
				requests++ === 0 ? { content: 'An answer cut short by a dying owner', hold: 'cut', holdAfterChunks: 2 } : { content: 'Resumed.' }
			);
			const db = await createTestDatabase(server.url(), 'failover');
			const env = { DATABASE_URL: db.url, RUN_LEASE_MS: String(lease), AUTO_RESUME: 'true' };
			const [a, b] = [
				await Service.start({ ollamaUrl: ollama.url, env: { ...env, SOPHOS_INSTANCE_ID: 'a' } }),
				await Service.start({ ollamaUrl: ollama.url, env: { ...env, SOPHOS_INSTANCE_ID: 'b' } })
			];
			try {
				const { conversation } = await (await a.post('/api/chat', { message: 'go' })).json();
				await ollama.held('cut');
				const killed = performance.now();
				await a.kill();
				let resumed: number | undefined;
				for (;;) {
					const runs = (await (await b.fetch(`/api/conversations/${conversation}/runs`)).json()).runs as { trigger: string; status: string }[];
					const auto = runs.find((r) => r.trigger === 'auto-resume');
					if (auto && resumed === undefined) resumed = performance.now() - killed;
					if (auto?.status === 'completed') break;
					await new Promise((r) => setTimeout(r, 10));
				}
				row.resumed.push(resumed!);
				row.completed.push(performance.now() - killed);
			} finally {
				await b.stop();
				await ollama.close();
				await db.drop();
			}
		}
		rows.push(row);
	}
} finally {
	await server.stop();
}

const range = (xs: number[]) => `${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))}`;
console.log(`\nFailover: SIGKILL of the owner → its run resumed on another instance, ${REPEAT} runs per lease`);
console.log(`Machine: ${os.cpus()[0]?.model} × ${os.cpus().length}, load ${os.loadavg()[0]!.toFixed(1)}, Node ${process.version}\n`);
console.log('| RUN_LEASE_MS | bound (lease + heartbeat) | kill → resumed elsewhere, ms | kill → resumed run completed, ms |\n| --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.lease} | ${Math.round(r.lease * 4 / 3)} | ${range(r.resumed)} | ${range(r.completed)} |`);
reportSummary(
	'failover',
	rows.map((r) => ({
		figure: `owner killed → run resumed elsewhere (RUN_LEASE_MS=${r.lease}), ms`,
		ours: range(r.resumed),
		baseline: String(Math.round((r.lease * 4) / 3)),
		goal: '≤ lease + one heartbeat',
		met: Math.max(...r.resumed) <= (r.lease * 4) / 3 + 500
	}))
);
