import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical-json';

/**
 * Pure. A hash of a tool call's arguments that two equal argument objects share whatever the order
 * of their keys (models emit keys in any order): JSON with every object's keys sorted.
 */
export function canonicalArgsHash(args: unknown): string {
	return createHash('sha256').update(canonicalJson(args)).digest('hex');
}
