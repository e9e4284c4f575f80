// Prepared statements for the statements sent most: each connection parses and plans one once,
// and once the server settles on a generic plan, never again (issue 26: planning was most of the
// server's time per turn).

import type pg from 'pg';

/** One name per text: pg refuses one name used for two texts on a connection. */
const names = new Map<string, string>();

/**
 * `text` with `values` as a named (prepared) statement. A statement whose text varies (a CTE
 * added or left out) gets a name per variant, so keep the variants few; where a parameter would
 * switch a branch of the statement on or off, write two texts instead, so the generic plan has no
 * branch it cannot prune.
 */
export function named(prefix: string, text: string, values: readonly unknown[]): pg.QueryConfig {
	let name = names.get(text);
	if (name === undefined) {
		name = `${prefix}_${names.size}`;
		names.set(text, name);
	}
	return { name, text, values: values as unknown[] };
}
