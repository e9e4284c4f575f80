import { describe, expect, it } from 'vitest';
import { Redactor } from '../../../src/lib/server/secrets/redactor';
import { createChildLog, createLog, refusalLine, uncaughtMessage } from '../../../src/lib/server/telemetry/log-formatter';

const redactor = new Redactor(['s3cr3t-token-value', 'abc']);

function capture(format: 'text' | 'json', scope = {}) {
	const out: string[] = [];
	const err: string[] = [];
	const log = createLog({
		format,
		instance: 'i-1',
		redact: (text) => redactor.redact(text),
		scope: () => scope,
		out: (t) => out.push(t),
		err: (t) => err.push(t)
	});
	return { log, out, err };
}

describe('createLog', () => {
	it('json: one object a line with the instance and the scope, errors on stderr with their stack', () => {
		const { log, out, err } = capture('json', { run: 'r', conversation: 'c', trace_id: 't', span_id: 's' });
		log('Run r started');
		log('Run r failed', Object.assign(new Error('boom'), { code: 'MODEL_UNREACHABLE' }));
		const line = JSON.parse(out[0]!);
		expect(line).toMatchObject({ level: 'info', message: 'Run r started', instance: 'i-1', run: 'r', conversation: 'c', trace_id: 't', span_id: 's' });
		expect(Date.parse(line.time)).not.toBeNaN();
		const failed = JSON.parse(err[0]!);
		expect(failed).toMatchObject({ level: 'error', error: { name: 'Error', message: 'boom', code: 'MODEL_UNREACHABLE' } });
		expect(failed.error.stack).toContain('boom');
	});

	it('text stays as it was; a secret is hidden in either format, a value too short to be one is not looked for', () => {
		for (const format of ['text', 'json'] as const) {
			const { log, out, err } = capture(format);
			log('connecting with s3cr3t-token-value to abc');
			log('failed', new Error('refused s3cr3t-token-value'));
			expect([...out, ...err].join('\n')).not.toContain('s3cr3t-token-value');
			expect(out[0]).toContain('connecting with [redacted] to abc');
			expect(err[0]).toContain('refused [redacted]');
		}
		const { log, out } = capture('text');
		log('plain line');
		expect(out).toEqual(['plain line']);
	});

	it("a stdio server's stderr line: to stderr as written in text, as {level, message, server} in JSON, redacted in both", () => {
		for (const format of ['text', 'json'] as const) {
			const out: string[] = [];
			const err: string[] = [];
			const child = createChildLog({ format, instance: 'i-1', redact: (t) => redactor.redact(t), scope: () => ({ run: 'r' }), out: (t) => out.push(t), err: (t) => err.push(t) });
			child('memory', 'key s3cr3t-token-value loaded');
			expect(out).toEqual([]);
			if (format === 'text') expect(err).toEqual(['key [redacted] loaded']);
			else expect(JSON.parse(err[0]!)).toEqual({ time: expect.any(String), level: 'info', message: 'key [redacted] loaded', instance: 'i-1', server: 'memory' });
		}
	});

	it('an uncaught listen failure names the address and the settings that chose it; another error is its own message', () => {
		const inUse = Object.assign(new Error('listen EADDRINUSE: address already in use 127.0.0.1:3000'), {
			code: 'EADDRINUSE',
			syscall: 'listen',
			address: '127.0.0.1',
			port: 3000
		});
		expect(uncaughtMessage(inUse)).toBe('Cannot listen on 127.0.0.1:3000 (HOST, PORT): the address is already in use (EADDRINUSE): stop what holds it or set another PORT');
		const denied = Object.assign(new Error('listen EACCES: permission denied 0.0.0.0:80'), { code: 'EACCES', syscall: 'listen', address: '0.0.0.0', port: 80 });
		expect(uncaughtMessage(denied)).toBe('Cannot listen on 0.0.0.0:80 (HOST, PORT): listen EACCES: permission denied 0.0.0.0:80');
		expect(uncaughtMessage(new RangeError('out of range'))).toBe('RangeError: out of range');
		expect(uncaughtMessage('thrown text')).toBe('thrown text');
	});

	it('a refused start is one JSON line with its message', () => {
		expect(JSON.parse(refusalLine(new TypeError('X="y": bad')))).toEqual({ time: expect.any(String), level: 'error', message: 'X="y": bad', error: { name: 'TypeError' } });
		expect(JSON.parse(refusalLine('plain'))).toMatchObject({ level: 'error', message: 'plain' });
	});
});
