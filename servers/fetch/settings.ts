// The server's settings, read once from its own environment at start. A bad value stops the
// process with a message naming the variable rather than running with a surprising default.
import { z } from 'zod';
import { parseAllowedHosts, type AllowedHost } from './allowed-hosts.js';
import { parseProtectedHosts, type ProtectedHost } from './protected-hosts.js';

export interface Settings {
	timeoutMs: number;
	maxBytes: number;
	ignoreRobots: boolean;
	allowedHosts: AllowedHost[];
	protectedHosts: ProtectedHost[];
}

export const DEFAULT_SETTINGS: Settings = {
	timeoutMs: 15_000,
	maxBytes: 5 * 1024 * 1024,
	ignoreRobots: false,
	allowedHosts: [],
	protectedHosts: []
};

// An empty variable (FOO= in a shell or a compose file) means "not set", not "invalid".
const unsetIfEmpty = (value: unknown) => (value === '' ? undefined : value);

const wholeNumber = (max: number, unit: string) =>
	z.preprocess(
		unsetIfEmpty,
		z
			.string()
			.trim()
			.regex(/^\d+$/, { error: (issue) => `expected a whole number of ${unit}, got ${JSON.stringify(issue.input)}` })
			.transform(Number)
			.pipe(
				z
					.number()
					.min(1, { error: `must be 1 or more ${unit}` })
					.max(max, { error: `must be at most ${max} ${unit}` })
			)
			.optional()
	);

const boolean = z.preprocess(
	unsetIfEmpty,
	z
		.string()
		.trim()
		.toLowerCase()
		.pipe(z.enum(['true', 'false', '1', '0'], { error: (issue) => `expected true or false, got ${JSON.stringify(issue.input)}` }))
		.transform((value) => value === 'true' || value === '1')
		.optional()
);

const hostList = <T>(parse: (list: string) => T[]) =>
	z.preprocess(
		unsetIfEmpty,
		z
			.string()
			.transform((value, ctx) => {
				try {
					return parse(value);
				} catch (error) {
					ctx.issues.push({ code: 'custom', input: value, message: (error as Error).message });
					return z.NEVER;
				}
			})
			.optional()
	);

const envSchema = z.object({
	// setTimeout's ceiling (about 24.8 days).
	FETCH_TIMEOUT_MS: wholeNumber(2_147_483_647, 'milliseconds'),
	// Bodies are held in memory whole, so the cap stays well below Node's buffer limits.
	FETCH_MAX_BYTES: wholeNumber(1024 * 1024 * 1024, 'bytes'),
	FETCH_IGNORE_ROBOTS: boolean,
	FETCH_ALLOWED_HOSTS: hostList(parseAllowedHosts),
	FETCH_PROTECTED_HOSTS: hostList(parseProtectedHosts)
});

export class SettingsError extends Error {
	override name = 'SettingsError';
}

export function parseSettings(env: Record<string, string | undefined>): Settings {
	const parsed = envSchema.safeParse(env);
	if (!parsed.success) {
		const lines = parsed.error.issues.map((issue) => `Invalid ${issue.path.join('.')}: ${issue.message}`);
		throw new SettingsError(lines.join('\n'));
	}
	const values = parsed.data;
	return {
		timeoutMs: values.FETCH_TIMEOUT_MS ?? DEFAULT_SETTINGS.timeoutMs,
		maxBytes: values.FETCH_MAX_BYTES ?? DEFAULT_SETTINGS.maxBytes,
		ignoreRobots: values.FETCH_IGNORE_ROBOTS ?? DEFAULT_SETTINGS.ignoreRobots,
		allowedHosts: values.FETCH_ALLOWED_HOSTS ?? DEFAULT_SETTINGS.allowedHosts,
		protectedHosts: values.FETCH_PROTECTED_HOSTS ?? DEFAULT_SETTINGS.protectedHosts
	};
}
