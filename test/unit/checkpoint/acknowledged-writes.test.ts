import { describe, expect, it } from 'vitest';
import { AcknowledgedWrites } from '../../../src/lib/server/checkpoint/acknowledged-writes';
import { hasSettled } from '../../support/settled';

/** A promise and the functions that settle it. */
function deferred() {
	let resolve!: () => void;
	let reject!: (e: unknown) => void;
	const promise = new Promise<void>((res, rej) => {
		resolve = res;
		reject = rej;
	});
	return { promise, resolve, reject };
}

describe('acknowledged writes', () => {
	it('committed waits for every write acknowledged to the thread before it, not for other threads', async () => {
		const writes = new AcknowledgedWrites();
		const [a, b, other] = [deferred(), deferred(), deferred()];
		writes.track('t', a.promise);
		writes.track('t', b.promise);
		writes.track('u', other.promise);
		const committed = writes.committed('t');
		a.resolve();
		expect(await hasSettled(committed)).toBe(false);
		b.resolve();
		expect(await hasSettled(committed)).toBe(true);
		await expect(committed).resolves.toBeUndefined();
		// A write acknowledged after the call is not waited for by it.
		const before = writes.committed('t');
		const later = deferred();
		writes.track('t', later.promise);
		expect(await hasSettled(before)).toBe(true);
		expect(await hasSettled(writes.committed('t'))).toBe(false);
		later.resolve();
		other.resolve();
	});

	it('reports the first failure once, to committed; settled waits without reporting it', async () => {
		const writes = new AcknowledgedWrites();
		const [first, second] = [deferred(), deferred()];
		writes.track('t', first.promise);
		writes.track('t', second.promise);
		first.reject(new Error('refused'));
		second.reject(new Error('also refused'));
		await expect(writes.settled('t')).resolves.toBeUndefined();
		await expect(writes.committed('t')).rejects.toThrow('refused');
		await expect(writes.committed('t')).resolves.toBeUndefined();
	});

	it('a thread with nothing acknowledged answers at once', async () => {
		const writes = new AcknowledgedWrites();
		expect(await hasSettled(writes.committed('never'))).toBe(true);
		expect(await hasSettled(writes.settled('never'))).toBe(true);
	});
});
