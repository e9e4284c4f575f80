import { EventEmitter } from 'node:events';
import type http from 'node:http';
import { describe, expect, it } from 'vitest';
import { RequestDrain } from '../../../servers/tool-host/request-drain';

const response = () => new EventEmitter() as unknown as http.ServerResponse;

describe('tool host request drain', () => {
	it('is drained at once when nothing is in flight', async () => {
		expect(await new RequestDrain().drained(60_000)).toBe(true);
	});

	it('is drained when the last request in flight closes', async () => {
		const drain = new RequestDrain();
		const [first, second] = [response(), response()];
		drain.track(first);
		drain.track(second);
		const drained = drain.drained(60_000);
		first.emit('close');
		second.emit('close');
		expect(await drained).toBe(true);
	});

	it('gives up after the grace period while a request is still in flight', async () => {
		const drain = new RequestDrain();
		drain.track(response());
		expect(await drain.drained(1)).toBe(false);
	});
});
