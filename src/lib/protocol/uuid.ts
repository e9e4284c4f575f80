const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A canonical UUID, trimmed and lower-cased, or null. */
export function parseUuid(value: unknown): string | null {
	if (typeof value !== 'string') return null;
	const v = value.trim();
	return UUID.test(v) ? v.toLowerCase() : null;
}
