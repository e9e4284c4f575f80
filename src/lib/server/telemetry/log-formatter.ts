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

/** A line a stdio MCP server wrote to its stderr. */
export type ChildLog = (server: string, line: string) => void;

type Level = 'info' | 'warn' | 'error';

function writers(options: LogOptions) {
	return {
		out: options.out ?? ((t: string) => process.stdout.write(t + '\n')),
		err: options.err ?? ((t: string) => process.stderr.write(t + '\n'))
	};
}

/** One JSON line, redacted as a whole, so a secret is hidden wherever in the record it stands. */
function jsonLine(options: LogOptions, level: Level, message: string, extra: Record<string, unknown>): string {
	return options.redact(JSON.stringify({ time: new Date().toISOString(), level, message, instance: options.instance, ...extra }));
}

/** The service's log function: a line, and with an error its stack, to stdout or (with an error) stderr. */
export function createLog(options: LogOptions): Log {
	const { out, err } = writers(options);
	return (line, error) => {
		const write = error === undefined ? out : err;
		if (options.format === 'text') {
			write(options.redact(error === undefined ? line : format('%s', line, error)));
			return;
		}
		const extra = { ...options.scope(), ...(error === undefined ? {} : { error: errorFields(error) }) };
		write(jsonLine(options, error === undefined ? 'info' : 'error', line, extra));
	};
}

/**
 * What stdio MCP servers write to their stderr, to Sophos's stderr line by line: in text as they
 * wrote it, in JSON as `{level: "info", message, server}` (stderr is the MCP stdio transport's
 * logging channel, not an error channel). Redacted either way: a server may print its own key.
 */
export function createChildLog(options: LogOptions): ChildLog {
	const { err } = writers(options);
	return (server, line) => err(options.format === 'text' ? options.redact(line) : jsonLine(options, 'info', line, { server }));
}

/**
 * LOG_FORMAT=json: whatever else the process writes through `console` (the HTTP server's
 * `Listening on …`, a library's warning) and Node's process warnings become JSON lines too, so
 * every line on stdout and stderr is one object. Text: nothing changes.
 */
export function routeProcessOutput(options: LogOptions): void {
	if (options.format === 'text') return;
	const { out, err } = writers(options);
	const to = (write: (t: string) => void, level: Level) => (...args: unknown[]) => write(jsonLine(options, level, format(...args), {}));
	console.log = console.info = console.debug = to(out, 'info');
	console.warn = to(err, 'warn');
	console.error = console.trace = to(err, 'error');
	// Node's own printer of warnings is a listener; without it the warning event still comes.
	process.removeAllListeners('warning');
	process.on('warning', (w) => err(jsonLine(options, 'warn', `${w.name}: ${w.message}`, {})));
	// Node prints an uncaught error (adapter-node's listen failing once the settings were read, say,
	// as its server has no 'error' listener) over several lines and exits 1: one JSON line, same exit.
	process.on('uncaughtException', (error) => {
		err(jsonLine(options, 'error', uncaughtMessage(error), { error: errorFields(error) }));
		process.exit(1);
	});
}

/**
 * Pure. What stopped the process, for the operator: a listen that failed names the address and the
 * settings that chose it; anything else is its own message.
 */
export function uncaughtMessage(error: unknown): string {
	const e = error as Partial<NodeJS.ErrnoException> & { address?: string; port?: number };
	if (e?.syscall !== 'listen') return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
	const where = e.port === undefined ? e.address : `${e.address}:${e.port}`;
	const why = e.code === 'EADDRINUSE' ? 'the address is already in use (EADDRINUSE): stop what holds it or set another PORT' : e.message;
	return `Cannot listen on ${where} (HOST, PORT): ${why}`;
}

/**
 * Pure but for the clock. The JSON line of a start that was refused: its message is already
 * redacted (a refused setting names itself without its value, a runtime failure is redacted before
 * it is thrown), and there is no instance yet.
 */
export function refusalLine(error: unknown): string {
	const message = error instanceof Error ? error.message : String(error);
	return JSON.stringify({ time: new Date().toISOString(), level: 'error', message, ...(error instanceof Error ? { error: { name: error.name } } : {}) });
}

function errorFields(error: unknown): Record<string, unknown> {
	if (!(error instanceof Error)) return { message: String(error) };
	const code = (error as { code?: unknown }).code;
	return { name: error.name, message: error.message, ...(code !== undefined ? { code: String(code) } : {}), stack: error.stack };
}
