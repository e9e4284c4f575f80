import { defineConfig } from 'vitest/config';

// Four kinds of test, one command: unit (pure modules, real SQLite files), core (the runtime in
// process: RunService, recovery and the executor on a real database, MCP child and scripted model),
// integration (the built service and MCP servers as child processes), e2e (the built app in
// Debian's Chromium).
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
					name: 'integration',
					include: ['test/integration/**/*.test.ts'],
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
