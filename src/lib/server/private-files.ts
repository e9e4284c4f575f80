/**
 * Conversations are the user's alone: under the usual umask (022) the data directory would be
 * created 0755 and the database 0644, and any local user could read every chat (issue 13). These
 * make a new directory 0700 and a file 0600 whatever the umask, and narrow files an older version
 * left readable. A directory that already exists keeps its mode: it may be one the operator shares.
 */
import fs from 'node:fs';

export function ensurePrivateDir(dir: string): void {
	fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Creates `file` empty if it is missing; either way it ends 0600. */
export function ensurePrivateFile(file: string): void {
	fs.closeSync(fs.openSync(file, 'a', 0o600));
	fs.chmodSync(file, 0o600);
}

/** 0600 if `file` exists; nothing otherwise. */
export function restrictFile(file: string): void {
	try {
		fs.chmodSync(file, 0o600);
	} catch (e) {
		if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
	}
}
