import { format } from 'node:util';
import type { LogScope } from './telemetry';

export type LogFormat = 'text' | 'json';

export type LogOptions = {
	/** LOG_FORMAT: `text` (the default) as it always was, or one JSON object a line. */
	format: LogFormat;
	/** This instance's name, on every JSON line. */
	instance: string;
	/** Values that never reach a line (tokens, keys, DATABASE_URL): replaced by `(hidden)` wherever they appear. */
	secrets: readonly string[];
	/** The run, conversation and span a line written now belongs to. */
	scope: () => LogScope;
	out?: (text: string) => void;
	err?: (text: string) => void;
};

export type Log = (line: string, error?: unknown) => void;

/** Secrets shorter than this are not looked for: a value of a few characters would hide ordinary words. */
const SHORTEST_SECRET = 6;

/** The service's log function: a line, and with an error its stack, to stdout or (with an error) stderr. */
export function createLog(options: LogOptions): Log {
	const secrets = options.secrets.filter((s) => s.length >= SHORTEST_SECRET);
	const hide = (text: string) => secrets.reduce((t, s) => t.split(s).join('(hidden)'), text);
	const out = options.out ?? ((t: string) => process.stdout.write(t + '\n'));
	const err = options.err ?? ((t: string) => process.stderr.write(t + '\n'));
	return (line, error) => {
		const write = error === undefined ? out : err;
		if (options.format === 'text') {
			write(hide(error === undefined ? line : format('%s', line, error)));
			return;
		}
		const record = {
			time: new Date().toISOString(),
			level: error === undefined ? 'info' : 'error',
			message: line,
			instance: options.instance,
			...options.scope(),
			...(error === undefined ? {} : { error: errorFields(error) })
		};
		write(hide(JSON.stringify(record)));
	};
}

function errorFields(error: unknown): Record<string, unknown> {
	if (!(error instanceof Error)) return { message: String(error) };
	const code = (error as { code?: unknown }).code;
	return { name: error.name, message: error.message, ...(code !== undefined ? { code: String(code) } : {}), stack: error.stack };
}
