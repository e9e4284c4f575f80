/**
 * Pure. What a remote MCP server's refusal says about OAuth scope (the MCP authorization spec's
 * scope challenge), the scope to ask for next, and the limit on asking again.
 */
import { extractWWWAuthenticateParams } from '@modelcontextprotocol/sdk/client/auth.js';
import { z } from 'zod';

/**
 * A 401 (`sign-in`: no token, or one refused) or a 403 `insufficient_scope` (`step-up`: the token
 * lacks a scope the request needs), with the `scope` the server's `WWW-Authenticate` named.
 */
export type ScopeChallenge = { kind: 'sign-in' | 'step-up'; scope?: string };

const InsufficientScopeBody = z.object({ error: z.literal('insufficient_scope') });

/**
 * The challenge in a server's answer, if any. RFC 6750 puts `error="insufficient_scope"` in
 * `WWW-Authenticate`; some servers name it only in the JSON body, which is read from a clone so the
 * SDK still reads the answer itself.
 */
export async function readChallenge(response: Response): Promise<ScopeChallenge | undefined> {
	if (response.status !== 401 && response.status !== 403) return undefined;
	const { scope, error } = extractWWWAuthenticateParams(response);
	const named = scope ? { scope } : {};
	if (response.status === 401) return { kind: 'sign-in', ...named };
	if (error === 'insufficient_scope' || (await bodySaysInsufficientScope(response.clone()))) return { kind: 'step-up', ...named };
	return undefined;
}

async function bodySaysInsufficientScope(response: Response): Promise<boolean> {
	try {
		return InsufficientScopeBody.safeParse(await response.json()).success;
	} catch {
		return false;
	}
}

/** The scopes of every argument, each once, in order of first mention; undefined when there are none. */
export function scopeUnion(...scopes: (string | undefined)[]): string | undefined {
	const all = new Set(scopes.flatMap((s) => s?.split(/\s+/).filter(Boolean) ?? []));
	return all.size ? [...all].join(' ') : undefined;
}

/**
 * Counts the step-up sign-ins asked in a row for one server. A server that still refuses for scope
 * after `limit` of them will not be satisfied by another: the next refusal is an error, not one
 * more sign-in for the person. A request the server answers ends the row.
 */
export class StepUps {
	private asked = 0;

	constructor(private readonly limit: number) {}

	/** Whether one more step-up sign-in may be asked; counts it when so. */
	ask(): boolean {
		if (this.asked >= this.limit) return false;
		this.asked++;
		return true;
	}

	/** How many were asked in this row. */
	get count(): number {
		return this.asked;
	}

	answered(): void {
		this.asked = 0;
	}
}
