// Parameters written into a statement as literals, for the statements a multi-statement query
// sends (issue 26: one round trip where a parameterised statement would need its own).

import pg from 'pg';

export type SqlValue = string | number | boolean | Uint8Array | null | undefined | readonly SqlValue[];

/**
 * `text` with each `$n` replaced by `values[n - 1]` written as a literal, as pg would send it as a
 * parameter: strings, numbers and booleans as their text, bytes (a Buffer, a Uint8Array) as bytea's hex text, an array
 * as an array's text ({…}, elements quoted), each quoted by pg's escapeLiteral; null or undefined as
 * NULL. A quoted literal is typed as pg types a parameter it sends without a type (unknown,
 * resolved from its use), so the statement means what it meant with parameters. `text` must hold
 * no `$` but its placeholders (no dollar-quoted strings).
 */
export function withLiterals(text: string, values: readonly SqlValue[]): string {
	return text.replace(/\$(\d+)/g, (_, n: string) => {
		const value = values[Number(n) - 1];
		return value === null || value === undefined ? 'NULL' : pg.escapeLiteral(asText(value));
	});
}

function asText(value: Exclude<SqlValue, null | undefined>): string {
	if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
	if (Array.isArray(value)) return `{${value.map(element).join(',')}}`;
	return String(value);
}

/** An element of an array's text: NULL, or quoted with its backslashes and quotes escaped. */
function element(value: SqlValue): string {
	if (value === null || value === undefined) return 'NULL';
	return `"${asText(value).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}
