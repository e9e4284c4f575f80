import { createHash } from 'node:crypto';

/**
 * Pure. A hash of a tool call's arguments that two equal argument objects share whatever the order
 * of their keys (models emit keys in any order): JSON with every object's keys sorted.
 */
export function canonicalArgsHash(args: unknown): string {
	return createHash('sha256').update(canonicalJson(args)).digest('hex');
}

export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v !== null && typeof v === 'object' && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: v
	);
}
