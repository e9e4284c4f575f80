import { createHash } from 'node:crypto';

/**
 * Pure. The run id a client's message id stands for on a thread, a name-based uuid (RFC 9562
 * version 5 layout over SHA-1): the SDK retries a POST after a 5xx or a dropped connection, and the
 * retry must find the run the first attempt started.
 */
export function runIdOfMessage(threadId: string, clientMessageId: string): string {
	const hash = createHash('sha1').update('sophos-run\0').update(threadId).update('\0').update(clientMessageId).digest();
	hash[6] = (hash[6]! & 0x0f) | 0x50;
	hash[8] = (hash[8]! & 0x3f) | 0x80;
	const hex = hash.subarray(0, 16).toString('hex');
	return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
