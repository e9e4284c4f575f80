/**
 * Why a migrate, backup or restore refused or stopped. The scripts print the message and exit 1;
 * tests branch on the code.
 */
export type PortableErrorCode =
	/** The command line or the settings do not say what to do (a missing argument, the wrong engine for the tool). */
	| 'USAGE'
	/** The PostgreSQL database cannot be reached or opened. */
	| 'CANNOT_OPEN'
	/** A running service holds the SQLite file. */
	| 'IN_USE'
	/** The target already holds data (a database, a file), and nothing said to overwrite or resume. */
	| 'TARGET_NOT_EMPTY'
	/** A backup without a readable manifest, or missing a file the manifest names. */
	| 'BAD_BACKUP'
	/** A file of the backup does not have the checksum its manifest records. */
	| 'CHECKSUM_MISMATCH'
	/** The data was written by a newer Sophos than this one. */
	| 'SCHEMA_NEWER'
	/** What was written does not read back as what was read. */
	| 'VERIFY_FAILED';

export class PortableError extends Error {
	override name = 'PortableError';

	constructor(
		readonly code: PortableErrorCode,
		message: string,
		options?: { cause?: unknown }
	) {
		super(message, options);
	}
}
