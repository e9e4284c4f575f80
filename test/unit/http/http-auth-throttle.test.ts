import { describe, expect, it } from 'vitest';
import { AuthThrottle } from '../../../src/lib/server/http/auth-throttle';

function clocked(maxEntries?: number) {
	let t = 1_000_000;
	const throttle = new AuthThrottle(() => t, maxEntries);
	return { throttle, advance: (ms: number) => (t += ms) };
}

describe('auth throttle', () => {
	it('lets four mistakes through, then makes each further one cost a doubling wait up to 15 min', () => {
		const { throttle, advance } = clocked();
		const waits: number[] = [];
		for (let i = 0; i < 12; i++) {
			expect(throttle.retryAfterMs('a')).toBe(0);
			throttle.failed('a');
			const wait = throttle.retryAfterMs('a');
			waits.push(wait);
			advance(wait);
		}
		expect(waits).toEqual([0, 0, 0, 0, 30_000, 60_000, 120_000, 240_000, 480_000, 900_000, 900_000, 900_000]);
	});

	it('counts down while an address waits', () => {
		const { throttle, advance } = clocked();
		for (let i = 0; i < 5; i++) throttle.failed('a');
		advance(10_000);
		expect(throttle.retryAfterMs('a')).toBe(20_000);
		advance(20_000);
		expect(throttle.retryAfterMs('a')).toBe(0);
	});

	it('keeps addresses apart', () => {
		const { throttle } = clocked();
		for (let i = 0; i < 5; i++) throttle.failed('a');
		expect(throttle.retryAfterMs('a')).toBeGreaterThan(0);
		expect(throttle.retryAfterMs('b')).toBe(0);
	});

	it('forgets the count after a right token, or an hour of quiet', () => {
		const { throttle, advance } = clocked();
		for (let i = 0; i < 4; i++) throttle.failed('a');
		throttle.succeeded('a');
		throttle.failed('a');
		expect(throttle.retryAfterMs('a')).toBe(0);
		for (let i = 0; i < 3; i++) throttle.failed('a');
		advance(60 * 60_000 + 1);
		throttle.failed('a');
		expect(throttle.retryAfterMs('a')).toBe(0);
	});

	it('remembers at most maxEntries addresses, forgetting the one heard from longest ago', () => {
		const { throttle } = clocked(2);
		for (let i = 0; i < 5; i++) throttle.failed('a');
		for (let i = 0; i < 5; i++) throttle.failed('b');
		throttle.failed('a');
		throttle.failed('c');
		expect(throttle.retryAfterMs('b')).toBe(0);
		expect(throttle.retryAfterMs('a')).toBeGreaterThan(0);
	});
});
