import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { PortableError } from './portable-error';

const FileEntrySchema = z.object({
	/** The file's name inside the backup directory. */
	name: z.string().regex(/^[A-Za-z0-9._-]+$/),
	bytes: z.number().int().nonnegative(),
	sha256: z.string().regex(/^[0-9a-f]{64}$/)
});
export type FileEntry = z.infer<typeof FileEntrySchema>;

/** `manifest.json` of a backup directory (README "Backups"). */
export const BackupManifestSchema = z.object({
	format: z.literal('sophos-backup'),
	formatVersion: z.literal(1),
	sophosVersion: z.string(),
	createdAt: z.iso.datetime(),
	/** `PRAGMA user_version` of the copied file: how many SQLite migrations it has. */
	schemaVersion: z.number().int().nonnegative(),
	database: FileEntrySchema,
	/** The memory server's knowledge graph; absent when MEMORY_FILE_PATH did not exist. */
	memory: FileEntrySchema.nullable(),
	/** Rows per table of the copy. */
	counts: z.record(z.string(), z.number().int().nonnegative())
});
export type BackupManifest = z.infer<typeof BackupManifestSchema>;

export const MANIFEST_NAME = 'manifest.json';

export function describeFile(dir: string, name: string): FileEntry {
	const file = path.join(dir, name);
	const hash = createHash('sha256');
	const fd = fs.openSync(file, 'r');
	const chunk = Buffer.allocUnsafe(1 << 20);
	let bytes = 0;
	try {
		for (let n; (n = fs.readSync(fd, chunk, 0, chunk.length, null)) > 0; bytes += n) hash.update(chunk.subarray(0, n));
	} finally {
		fs.closeSync(fd);
	}
	return { name, bytes, sha256: hash.digest('hex') };
}

/** The backup's manifest, parsed, with every file it names checked against its size and checksum. */
export function readCheckedManifest(dir: string): BackupManifest {
	let raw: unknown;
	try {
		raw = JSON.parse(fs.readFileSync(path.join(dir, MANIFEST_NAME), 'utf8'));
	} catch (e) {
		throw new PortableError('BAD_BACKUP', `${dir} holds no readable ${MANIFEST_NAME}: not a Sophos backup`, { cause: e });
	}
	const parsed = BackupManifestSchema.safeParse(raw);
	if (!parsed.success) {
		const issue = parsed.error.issues[0];
		throw new PortableError('BAD_BACKUP', `${MANIFEST_NAME} in ${dir} is not a Sophos backup manifest: ${issue?.path.join('.')}: ${issue?.message}`);
	}
	for (const entry of [parsed.data.database, parsed.data.memory]) {
		if (entry === null) continue;
		if (!fs.existsSync(path.join(dir, entry.name))) throw new PortableError('BAD_BACKUP', `${entry.name} is missing from ${dir}`);
		const found = describeFile(dir, entry.name);
		if (found.sha256 !== entry.sha256 || found.bytes !== entry.bytes) {
			throw new PortableError('CHECKSUM_MISMATCH', `${entry.name} in ${dir} does not match its checksum in ${MANIFEST_NAME}: the backup is damaged`);
		}
	}
	return parsed.data;
}
