import { describe, expect, it } from 'vitest';
import { UnconfirmedWrites } from '../../../src/lib/server/tools/unconfirmed-writes';

/** A write the test settles by hand. */
function pending() {
	let resolve!: () => void;
	let reject!: (error: unknown) => void;
	const write = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
	return { write, resolve, reject };
}

describe('UnconfirmedWrites', () => {
	it('settles once every write has, including one added while it waits', async () => {
		const writes = new UnconfirmedWrites();
		const [first, later] = [pending(), pending()];
		writes.add(first.write);
		let settled = false;
		const waiting = writes.settled().then((failure) => ((settled = true), failure));
		writes.add(later.write);
		first.resolve();
		// Every promise reaction the first write's settling queued has run by the next macrotask.
		await new Promise((resolve) => setImmediate(resolve));
		expect(settled).toBe(false);
		later.resolve();
		expect(await waiting).toBeUndefined();
	});

	it('answers the first failure, and keeps answering it', async () => {
		const writes = new UnconfirmedWrites();
		const [a, b] = [pending(), pending()];
		writes.add(a.write);
		writes.add(b.write);
		const first = new Error('first');
		b.reject(first);
		a.reject(new Error('second'));
		expect(await writes.settled()).toEqual({ error: first });
		expect(await writes.settled()).toEqual({ error: first });
	});

	it('settles at once with nothing added', async () => {
		expect(await new UnconfirmedWrites().settled()).toBeUndefined();
	});
});
