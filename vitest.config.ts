import { defineConfig } from 'vitest/config';

// Seven kinds of test, one command: unit (pure modules, real SQLite files), core (the runtime in
// process: RunService, recovery and the executor on a real database, MCP child and scripted model),
// postgres (in-process, on a real PostgreSQL server started for the run), integration (the built
// service and MCP servers as child processes), integration-postgres (the same tests with
// DATABASE_URL on a real PostgreSQL), instances (several service processes on one PostgreSQL), e2e
// (the built app in Debian's Chromium).
//
// Vitest runs every project whose files must run one at a time in one queue after the others, so
// the two integration projects share a group of their own instead (groupOrder 1, two files at a
// time: a file spends most of its time waiting on the services it started, and each file's
// services, ports, directories and databases are its own). Instances and e2e stay one at a time:
// several services or a browser each already fill the machine.
export default defineConfig({
	test: {
		maxWorkers: 2,
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
					sequence: { groupOrder: 1 }
				}
			},
			{
				test: {
					name: 'integration-postgres',
					include: ['test/integration/**/*.test.ts'],
					exclude: [
						// The SQLite file itself: its modes, WAL and upgrades from earlier layouts; migrate
						// starts its own PostgreSQL beside the file.
						'test/integration/data-at-rest.test.ts',
						'test/integration/upgrade.test.ts',
						'test/integration/backup-restore.test.ts',
						'test/integration/migrate.test.ts',
						// Starts a service on each engine itself.
						'test/integration/conversation-bundle.test.ts',
						// The edge and the tool servers, which store nothing: the same code on either engine.
						'test/integration/front-door-host.test.ts',
						'test/integration/front-door-origin.test.ts',
						'test/integration/front-door-slow-clients.test.ts',
						'test/integration/front-door-start.test.ts',
						'test/integration/front-door-token.test.ts',
						'test/integration/fetch-*.test.ts',
						'test/integration/secret-leaks.test.ts',
						'test/integration/answer-cap.test.ts',
						'test/integration/model-errors.test.ts',
						'test/integration/mcp-child-env.test.ts',
						'test/integration/tool-host.test.ts',
						// Its one storage question, a run counted once after a takeover, is asked in instances.
						'test/integration/telemetry.test.ts'
					],
					globalSetup: ['test/support/postgres-global-setup.ts'],
					env: { SOPHOS_TEST_ENGINE: 'postgres' },
					testTimeout: 120_000,
					hookTimeout: 120_000,
					sequence: { groupOrder: 1 }
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
