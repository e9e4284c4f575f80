import { inspect } from 'node:util';
import { displayUrl } from './display-url';

/** What a known secret is replaced by in an outward text. */
export const REDACTED = '[redacted]';

/**
 * Shorter values are not looked for in free text: a four-letter password would blank that word in
 * every error. Such a password is still hidden wherever it sits in a URL (see `redact`), and every
 * secret Sophos itself checks is longer (SOPHOS_TOKEN has at least 16 characters).
 */
const MIN_SECRET_CHARS = 4;

/** A URL written in a text, up to the first character that cannot be in one unescaped. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;

/**
 * Knows every secret Sophos holds (API keys, SOPHOS_TOKEN, DATABASE_URL's password, the
 * credentials and query secrets of configured URLs, the header values of MCP servers; OAuth tokens
 * are added with `add` when they are obtained or refreshed) and takes them out of a text that
 * leaves the service: run errors as stored and streamed, readiness, GET /api/models, log lines,
 * the error that refuses a start. Model servers, databases and HTTP clients quote what they were
 * sent in their errors (an echoed Authorization header, a URL with `user:password@`), and each of
 * those texts is ours to pass on only once it went through here.
 */
export class Redactor {
	private readonly secrets = new Set<string>();
	/** Longest first, so that a secret holding another is replaced whole. */
	private ordered: string[] = [];

	constructor(secrets: Iterable<string | undefined> = []) {
		this.add(...secrets);
	}

	/** Learns secrets; empty, undefined and too short values are ignored (see MIN_SECRET_CHARS). */
	add(...secrets: (string | undefined)[]): void {
		for (const secret of secrets) if (secret && secret.length >= MIN_SECRET_CHARS) this.secrets.add(secret);
		this.ordered = [...this.secrets].sort((a, b) => b.length - a.length);
	}

	/**
	 * Pure given the secrets known. Every known secret replaced by REDACTED, and every URL in the
	 * text shown without credentials or query values (displayUrl), also URLs Sophos was never told
	 * about: an error that quotes a request's URL quotes its credentials.
	 */
	redact(text: string): string {
		return this.redactSecrets(text.replace(URL_IN_TEXT, (url) => displayUrl(url)));
	}

	/**
	 * Pure given the secrets known. Only the known secrets replaced, every URL left as it is: for
	 * a conversation's own text (a bundle), where a URL's query is content, not a credential.
	 */
	redactSecrets(text: string): string {
		let out = text;
		for (const secret of this.ordered) out = out.split(secret).join(REDACTED);
		return out;
	}

	/** Every string inside a JSON-like value redacted (readiness, a model list): a copy, the value is untouched. */
	redactDeep<T>(value: T): T {
		if (typeof value === 'string') return this.redact(value) as T;
		if (Array.isArray(value)) return value.map((v) => this.redactDeep(v)) as T;
		if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
			return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, this.redactDeep(v)])) as T;
		}
		return value;
	}

	/**
	 * An error as a log shows it (its stack, its fields and its cause chain, where a client keeps
	 * the response body and the request it made), redacted. Never the error object itself: the
	 * console would print its fields as they are.
	 */
	describe(error: unknown): string {
		return this.redact(error instanceof Error ? inspect(error, { depth: 6, breakLength: Infinity }) : String(error));
	}
}

/**
 * The service's one redactor. Module state on purpose: its sinks sit in every layer (the run
 * executor, the model catalog, readiness, the HTTP error mapper, the log, shutdown), and a secret
 * learnt later (an OAuth token on refresh) must reach all of them at once. Only the composition
 * root (runtime.ts) and credential holders add to it; tests build their own Redactor.
 */
export const redactor = new Redactor();
