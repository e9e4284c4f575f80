import { describe, expect, it } from 'vitest';
import { parseSettings, SettingsError } from '../../../servers/tool-host/settings';

const TOKEN = 'abcdefghijklmnop0123';

describe('tool host settings', () => {
	it('defaults to loopback, port 3100, config/tool-host.json, a 1 MiB body and no token', () => {
		expect(parseSettings({})).toEqual({
			host: '127.0.0.1',
			port: 3100,
			token: undefined,
			configFile: 'config/tool-host.json',
			allowedHosts: [],
			bodyLimitBytes: 1024 * 1024,
			callTimeoutMs: 600_000,
			sessionIdleMs: 600_000,
			shutdownGraceMs: 10_000
		});
	});

	it('reads every variable, an empty one counting as unset', () => {
		const s = parseSettings({
			TOOL_HOST_HOST: '0.0.0.0',
			TOOL_HOST_PORT: '4000',
			TOOL_HOST_TOKEN: TOKEN,
			TOOL_HOST_CONFIG: '/etc/sophos/tools.json',
			TOOL_HOST_ALLOWED_HOSTS: 'tools.internal, 10.0.0.5:4000',
			TOOL_HOST_BODY_LIMIT: '',
			TOOL_HOST_CALL_TIMEOUT_MS: '5000'
		});
		expect(s).toMatchObject({ host: '0.0.0.0', port: 4000, token: TOKEN, configFile: '/etc/sophos/tools.json', callTimeoutMs: 5000 });
		expect(s.allowedHosts).toEqual([{ host: 'tools.internal' }, { host: '10.0.0.5', port: 4000 }]);
		expect(s.bodyLimitBytes).toBe(1024 * 1024);
	});

	it.each([
		[{ TOOL_HOST_HOST: '0.0.0.0' }, 'TOOL_HOST_TOKEN is required when TOOL_HOST_HOST="0.0.0.0" is not a loopback address'],
		[{ TOOL_HOST_ALLOWED_HOSTS: 'tools.internal' }, 'TOOL_HOST_TOKEN is required when TOOL_HOST_ALLOWED_HOSTS is set'],
		[{ TOOL_HOST_PORT: '70000' }, 'TOOL_HOST_PORT="70000": must be at most 65535'],
		[{ TOOL_HOST_PORT: '3x' }, 'TOOL_HOST_PORT="3x": expected a whole number'],
		[{ TOOL_HOST_BODY_LIMIT: '10' }, 'TOOL_HOST_BODY_LIMIT="10": must be at least 1024'],
		[{ TOOL_HOST_ALLOWED_HOSTS: 'a b' }, 'TOOL_HOST_ALLOWED_HOSTS="a b": "a b" is not a host or host:port'],
		[{ TOOL_HOST_CALL_TIMEOUT_MS: '0' }, 'TOOL_HOST_CALL_TIMEOUT_MS="0": must be at least 1'],
		[{ TOOL_HOST_SESSION_IDLE_MS: '999' }, 'TOOL_HOST_SESSION_IDLE_MS="999": must be at least 1000'],
		[{ TOOL_HOST_SHUTDOWN_GRACE_MS: '600001' }, 'TOOL_HOST_SHUTDOWN_GRACE_MS="600001": must be at most 600000']
	])('refuses %j: %s', (env, message) => {
		expect(() => parseSettings(env)).toThrow(SettingsError);
		expect(() => parseSettings(env)).toThrow(message);
	});

	it('refuses a short or malformed token without repeating it', () => {
		for (const bad of ['short', 'sixteen chars but spaces']) {
			const error = (() => {
				try {
					parseSettings({ TOOL_HOST_TOKEN: bad });
				} catch (e) {
					return e as Error;
				}
			})();
			expect(error?.message).toMatch(/^Invalid settings: TOOL_HOST_TOKEN=\(hidden\): 16 to 512 of/);
			expect(error?.message).not.toContain(bad);
		}
	});

	it('allows off-loopback listening with a token, and loopback without one', () => {
		expect(parseSettings({ TOOL_HOST_HOST: '::', TOOL_HOST_TOKEN: TOKEN }).host).toBe('::');
		expect(parseSettings({ TOOL_HOST_HOST: '::1' }).token).toBeUndefined();
	});
});
