// The PostgreSQL engine: its one migration list and the stores built on it. See README.md.

export { DeltaPostgresSaver, type DeltaPostgresSaverOptions } from './checkpoint/saver.js';
export { migratePostgres, PostgresSchemaError } from './migrate.js';
export { postgresAppStorage } from './app/app-storage.js';
export { postgresCheckpointHistory } from './checkpoint/history.js';
