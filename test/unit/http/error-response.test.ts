import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src/lib/server/errors';
import { errorResponse } from '../../../src/lib/server/http/api-error';

describe('errorResponse', () => {
	afterEach(() => vi.restoreAllMocks());

	it('answers a refusal with its code and status, and an unknown error as INTERNAL_ERROR, logged', async () => {
		const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
		const refused = errorResponse(new ApiError('NOT_FOUND', 'No such thread'));
		expect(refused.status).toBe(404);
		expect(await refused.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'No such thread' } });
		expect(logged).not.toHaveBeenCalled();

		const failed = errorResponse(new TypeError('boom'));
		expect(failed.status).toBe(500);
		expect(await failed.json()).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal error' } });
		expect(logged).toHaveBeenCalledOnce();
	});

	it('logs nothing for an error after the client hung up, and answers 499 with no body', async () => {
		const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
		const controller = new AbortController();
		const request = new Request('http://127.0.0.1/threads/t/runs/r/join', { signal: controller.signal });
		controller.abort();
		const response = errorResponse(controller.signal.reason, request);
		expect(response.status).toBe(499);
		expect(await response.text()).toBe('');
		expect(logged).not.toHaveBeenCalled();
	});

	it('still answers and logs an error of a request whose client is there', async () => {
		const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
		const request = new Request('http://127.0.0.1/threads/t/runs/r/join');
		const response = errorResponse(new Error('the database said no'), request);
		expect(response.status).toBe(500);
		expect(logged).toHaveBeenCalledOnce();
	});
});
