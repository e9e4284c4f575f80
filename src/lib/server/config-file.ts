import fs from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';

/**
 * Reads a JSON file of `$CONFIG_DIR` and parses it with its strict schema, once at start. Every
 * problem names the file and the key, so a typo stops the start with a message that says where.
 * A file that does not exist is `undefined` when `optional`, an error otherwise.
 */
export async function readJsonConfig<S extends z.ZodType>(file: string, schema: S, what: string): Promise<z.infer<S>>;
export async function readJsonConfig<S extends z.ZodType>(
	file: string,
	schema: S,
	what: string,
	options: { optional: true }
): Promise<z.infer<S> | undefined>;
export async function readJsonConfig<S extends z.ZodType>(
	file: string,
	schema: S,
	what: string,
	options: { optional?: boolean } = {}
): Promise<z.infer<S> | undefined> {
	const where = path.resolve(file);
	let raw: unknown;
	try {
		raw = JSON.parse(await fs.readFile(file, 'utf8'));
	} catch (e) {
		if (options.optional && (e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
		throw new Error(`Failed to load ${what} from ${where}: ${(e as Error).message}`);
	}
	const parsed = schema.safeParse(raw);
	if (!parsed.success) {
		const why = parsed.error.issues.map((i) => {
			// zod says only "Invalid key in record" for a bad key; the reason is one level down.
			const message = i.code === 'invalid_key' ? i.issues.map((k) => k.message).join(', ') : i.message;
			return `${i.path.join('.') || '(top level)'}: ${message}`;
		});
		throw new Error(`Invalid ${what} in ${where}: ${why.join('; ')}`);
	}
	return parsed.data;
}

/**
 * `${NAME}` is the service's NAME and fails the start when NAME is unset, so a forgotten secret is
 * not sent as an empty string; `${NAME:-default}` gives `default` when NAME is unset or empty.
 */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Pure. A config value with its `${…}` references expanded, the names it used (for the check of
 * secrets in mcp.json) and those of them that are unset.
 */
export function expandReferences(
	value: string,
	vars: Record<string, string | undefined>
): { value: string; used: string[]; unset: string[] } {
	const unset: string[] = [];
	const used: string[] = [];
	const expanded = value.replace(REFERENCE, (_, name: string, fallback: string | undefined) => {
		used.push(name);
		const v = vars[name];
		if (fallback !== undefined) return v === undefined || v === '' ? fallback : v;
		if (v === undefined) unset.push(name);
		return v ?? '';
	});
	return { value: expanded, used, unset };
}

export function unsetMessage(name: string): string {
	return `uses \${${name}}, which is not set (write \${${name}:-} for an optional one)`;
}
