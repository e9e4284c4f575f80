import { format } from 'node:util';
import type { LogScope } from './telemetry';

export type LogFormat = 'text' | 'json';

export type LogOptions = {
	/** LOG_FORMAT: `text` (the default) as it always was, or one JSON object a line. */
	format: LogFormat;
	/** This instance's name, on every JSON line. */
	instance: string;
	/** Takes every secret out of a line before it is written (secrets/redactor.ts: the one redactor). */
	redact: (text: string) => string;
	/** The run, conversation and span a line written now belongs to. */
	scope: () => LogScope;
	out?: (text: string) => void;
	err?: (text: string) => void;
};

export type Log = (line: string, error?: unknown) => void;

/** The service's log function: a line, and with an error its stack, to stdout or (with an error) stderr. */
export function createLog(options: LogOptions): Log {
	const hide = options.redact;
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
