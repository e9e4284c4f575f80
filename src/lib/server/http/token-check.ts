/**
 * Pure. The SOPHOS_TOKEN a request presents, and whether it is the right one. The comparison takes
 * the same time wherever the two differ: both sides are hashed to 32 bytes first, so not even the
 * length of the token leaks.
 */
import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer +(\S+) *$/i;

/** The token of `Authorization: Bearer <token>`; null for any other scheme or shape. */
export function presentedToken(authorization: string): string | null {
	return BEARER.exec(authorization)?.[1] ?? null;
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function tokenMatches(presented: string, expected: string): boolean {
	return timingSafeEqual(digest(presented), digest(expected));
}
