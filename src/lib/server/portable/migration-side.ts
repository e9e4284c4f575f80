import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';

/** A table's rows as plain values, in the order they were inserted (which ties between equal timestamps follow). */
export type TableRows = { table: string; columns: string[]; rows: unknown[][] };

/**
 * One end of a migration: what `migrateData` reads from the source and writes to the target, the
 * same on both engines. Timestamps travel as the ISO text the app writes (`…T…:…:….sssZ`).
 */
export interface MigrationSide {
	/** For messages: the SQLite file's path, or PostgreSQL's host:port/database (never a password). */
	readonly where: string;
	/** A saver without hooks: a copied put moves no branch head; the heads are copied as rows. */
	readonly saver: BaseCheckpointSaver;
	/** The rows of the app's tables, parents before children (conversations first). */
	readRows(tables: readonly string[]): Promise<TableRows[]>;
	/** All of them in one transaction, a row whose key is there already left as it is (a resumed migration). */
	writeRows(tables: TableRows[]): Promise<void>;
	/** Threads that hold checkpoints. */
	threadIds(): Promise<string[]>;
	/** Rows per table. */
	count(tables: readonly string[]): Promise<Record<string, number>>;
	close(): Promise<void>;
}
