/**
 * Pure. JSON with every object's keys sorted, so two equal values give the same text whatever
 * the order their keys were written in (models emit arguments, clients metadata, in any order).
 */
export function canonicalJson(value: unknown): string {
	return JSON.stringify(value, (_key, v: unknown) =>
		v !== null && typeof v === 'object' && !Array.isArray(v)
			? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
			: v
	);
}
