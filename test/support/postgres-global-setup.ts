// vitest globalSetup of the `postgres` project: one server for the run, stopped and removed at
// the end whatever the tests did. Each test file makes its own database (createTestDatabase).

import type { TestProject } from 'vitest/node';
import { startPostgres } from './postgres.js';

declare module 'vitest' {
	export interface ProvidedContext {
		/** Superuser connection string of the run's PostgreSQL server. */
		postgresUrl: string;
		/** The same through the server's unix socket. */
		postgresSocketUrl: string;
	}
}

export default async function setup(project: TestProject) {
	const server = await startPostgres();
	project.provide('postgresUrl', server.url());
	project.provide('postgresSocketUrl', server.socketUrl());
	return () => server.stop();
}
