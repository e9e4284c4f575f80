import type { CrashInjector } from '../crash-points';
import { compareThreadCheckpoints, copyThreadCheckpoints } from './checkpoint-copy';
import type { MigrationSide } from './migration-side';
import { PortableError } from './portable-error';
import { APP_TABLES } from './table-counts';

export type MigrationReport = {
	/** Rows per app table, on the source and on the target after the copy. */
	counts: Record<string, { source: number; target: number }>;
	threads: number;
	/** Checkpoints read back from both engines and found the same. */
	checkpoints: number;
	/** Checkpoints this run put (fewer than `checkpoints` when it finished an interrupted migration). */
	put: number;
};

/**
 * Copies everything Sophos keeps from one engine to the other and checks it: the app's tables row
 * by row in one transaction, then each thread's checkpoints and writes through the savers
 * (checkpoint-copy.ts), then rows per table compared and every checkpoint of every thread read
 * back from both and compared. A target holding anything is refused, naming what it holds, unless
 * `resume`: then rows already there are kept and checkpoints already there are not put again, so
 * a migration killed at any point is finished by running it again with `resume`.
 */
export async function migrateData(
	source: MigrationSide,
	target: MigrationSide,
	options: { resume: boolean; crash: CrashInjector; log: (line: string) => void }
): Promise<MigrationReport> {
	const held = await target.count([...APP_TABLES, 'lg_checkpoints']);
	const found = Object.entries(held).filter(([, n]) => n > 0);
	if (found.length > 0 && !options.resume) {
		throw new PortableError(
			'TARGET_NOT_EMPTY',
			`${target.where} is not empty (${found.map(([table, n]) => `${n} in ${table}`).join(', ')}): ` +
				'migrate into an empty database, or pass --resume to finish a migration that was interrupted'
		);
	}
	await target.writeRows(await source.readRows(APP_TABLES));
	options.log(`Copied the rows of ${APP_TABLES.join(', ')}`);
	const threads = await source.threadIds();
	let put = 0;
	let checkpoints = 0;
	for (const threadId of threads) {
		put += await copyThreadCheckpoints(source.saver, target.saver, threadId);
		options.crash('after-migrated-thread');
	}
	options.log(`Copied the checkpoints of ${threads.length} threads (${put} put)`);

	const [before, after] = await Promise.all([source.count(APP_TABLES), target.count(APP_TABLES)]);
	const counts = Object.fromEntries(APP_TABLES.map((t) => [t, { source: before[t]!, target: after[t]! }]));
	const differing = APP_TABLES.filter((t) => before[t] !== after[t]);
	if (differing.length > 0) {
		throw new PortableError('VERIFY_FAILED', `rows differ after the copy: ${differing.map((t) => `${t} ${before[t]} → ${after[t]}`).join(', ')}`);
	}
	const targetThreads = await target.threadIds();
	if (targetThreads.length !== threads.length) {
		throw new PortableError('VERIFY_FAILED', `${threads.length} threads on the source, ${targetThreads.length} on the target`);
	}
	for (const threadId of threads) {
		const { count, difference } = await compareThreadCheckpoints(source.saver, target.saver, threadId);
		if (difference !== null) throw new PortableError('VERIFY_FAILED', `after the copy, ${difference}`);
		checkpoints += count;
	}
	return { counts, threads: threads.length, checkpoints, put };
}
