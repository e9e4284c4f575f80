// Parameters written into a statement as literals, for the statements a multi-statement query
// sends (issue 26: one round trip where a parameterised statement would need its own).

import pg from 'pg';

export type SqlValue = string | number | boolean | null | undefined;

/**
 * `text` with each `$n` replaced by `values[n - 1]` as a literal escaped by pg's escapeLiteral
 * (NULL for null or undefined). A quoted literal is typed as pg types a parameter it sends without
 * a type (unknown, resolved from its use), so the statement means what it meant with parameters.
 * `text` must hold no `$` but its placeholders (no dollar-quoted strings).
 */
export function withLiterals(text: string, values: readonly SqlValue[]): string {
	return text.replace(/\$(\d+)/g, (_, n: string) => {
		const value = values[Number(n) - 1];
		return value === null || value === undefined ? 'NULL' : pg.escapeLiteral(String(value));
	});
}
