import { defineConfig } from 'vitest/config';

// Seven kinds of test, one command: unit (pure modules, real SQLite files), core (the runtime in
// process: RunService, recovery and the executor on a real database, MCP child and scripted model),
// postgres (in-process, on a real PostgreSQL server started for the run), integration (the built
// service and MCP servers as child processes), integration-postgres (the same tests with
// DATABASE_URL on a real PostgreSQL), instances (several service processes on one PostgreSQL), e2e
// (the built app in Debian's Chromium).
export default defineConfig({
	test: {
		projects: [
			{
				test: {
					name: 'unit',
					include: ['test/unit/**/*.test.ts'],
					testTimeout: 30_000
				}
			},
			{
				test: {
					name: 'core',
					include: ['test/core/**/*.test.ts'],
					testTimeout: 60_000,
					hookTimeout: 60_000
				}
			},
			{
				test: {
					name: 'postgres',
					include: ['test/postgres/**/*.test.ts'],
					globalSetup: ['test/support/postgres-global-setup.ts'],
					testTimeout: 60_000,
					hookTimeout: 120_000
				}
			},
			{
				test: {
					name: 'integration',
					include: ['test/integration/**/*.test.ts'],
					testTimeout: 120_000,
					hookTimeout: 120_000,
					fileParallelism: false
				}
			},
			{
				test: {
					name: 'integration-postgres',
					include: ['test/integration/**/*.test.ts'],
					// The SQLite file itself: its modes, WAL and upgrades from earlier layouts; and the
					// bundle test, which starts a service on each engine itself.
					exclude: ['test/integration/data-at-rest.test.ts', 'test/integration/upgrade.test.ts', 'test/integration/backup-restore.test.ts', 'test/integration/migrate.test.ts', 'test/integration/conversation-bundle.test.ts'],
					globalSetup: ['test/support/postgres-global-setup.ts'],
					env: { SOPHOS_TEST_ENGINE: 'postgres' },
					testTimeout: 120_000,
					hookTimeout: 120_000,
					fileParallelism: false
				}
			},
			{
				test: {
					name: 'instances',
					include: ['test/instances/**/*.test.ts'],
					globalSetup: ['test/support/postgres-global-setup.ts'],
					testTimeout: 120_000,
					hookTimeout: 120_000,
					fileParallelism: false
				}
			},
			{
				test: {
					name: 'e2e',
					include: ['test/e2e/**/*.test.ts'],
					testTimeout: 120_000,
					hookTimeout: 120_000,
					fileParallelism: false
				}
			}
		]
	}
});
