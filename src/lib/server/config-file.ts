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
		const why = parsed.error.issues.map((i) => `${i.path.join('.') || '(top level)'}: ${i.message}`);
		throw new Error(`Invalid ${what} in ${where}: ${why.join('; ')}`);
	}
	return parsed.data;
}

/** `${NAME}` in a config value, from the service's environment (unset → ""). */
export function expandVars(value: string, vars: Record<string, string | undefined>): string {
	return value.replace(/\$\{([A-Z0-9_]+)\}/g, (_, name: string) => vars[name] ?? '');
}
