import type { Check, McpCheck, ProviderCheck, Readiness } from '../protocol';
import type { ServerStatus } from './mcp/server-supervisor';
import type { ModelCatalog } from './models/model-catalog';
import { parseModelId } from '../protocol/model-id';
import { redactor } from './secrets/redactor';

/** Whether the database answers `ping`. */
export async function checkDatabase(ping: () => Promise<void>): Promise<Check> {
	try {
		await ping();
		return { status: 'ok' };
	} catch (e) {
		return { status: 'error', message: redactor.redact(`Database: ${(e as Error).message}`) };
	}
}

const MCP_STATUS = { up: 'ok', starting: 'starting', 'sign-in': 'sign-in', down: 'error', closed: 'error' } as const;

function mcpCheck(s: ServerStatus): McpCheck {
	return {
		status: MCP_STATUS[s.state],
		tools: s.tools,
		...(s.state !== 'up' ? { message: redactor.redact(s.error ?? `MCP server "${s.name}" is ${s.state}`) } : {}),
		...(s.oauth ? { oauth: true } : {}),
		...(s.state === 'sign-in' ? { signIn: `/api/mcp/${encodeURIComponent(s.name)}/sign-in` } : {})
	};
}

/**
 * Database, default model, each model provider and each MCP server, separately; `error` names
 * everything that is not up (a down default provider once, by the model check).
 */
export function checkReadiness(parts: {
	database: Check;
	models: { model: Check; providers: Record<string, ProviderCheck> };
	defaultModel: string;
	mcp: ServerStatus[];
}): Readiness {
	const { database } = parts;
	const { model, providers } = parts.models;
	const defaultProvider = parseModelId(parts.defaultModel)?.provider;
	const mcp = Object.fromEntries(parts.mcp.map((s): [string, McpCheck] => [s.name, mcpCheck(s)]));
	const down = [
		...(database.status !== 'ok' ? [database.message!] : []),
		...(model.status !== 'ok' ? [model.message!] : []),
		...Object.entries(providers).flatMap(([name, c]) =>
			c.status === 'ok' || name === defaultProvider ? [] : [`Model server "${name}": ${c.message}`]
		),
		...Object.entries(mcp).flatMap(([name, c]) =>
			c.status === 'ok' ? [] : [c.status === 'sign-in' ? `MCP server "${name}" needs sign-in` : `MCP server "${name}" is ${c.status}`]
		)
	];
	return {
		status: down.length ? 'error' : 'ok',
		...(down.length ? { message: down.join('; ') } : {}),
		defaultModel: parts.defaultModel,
		checks: { database, model, providers, mcp }
	};
}

/**
 * `check`, shared: a call that arrives while one runs waits for it, and its result answers every
 * call for `ttlMs` after it settles (READINESS_CACHE_MS), so a burst of readiness probes costs one
 * request to the model server. With `ttlMs` 0 a check in flight is still shared. A rejected check
 * is not kept.
 */
export function sharedCheck<T>(check: () => Promise<T>, ttlMs: number, now: () => number = Date.now): () => Promise<T> {
	let last: { value: Promise<T>; settledAt: number | null } | null = null;
	return () => {
		if (last && (last.settledAt === null || now() - last.settledAt < ttlMs)) return last.value;
		const entry: { value: Promise<T>; settledAt: number | null } = { value: check(), settledAt: null };
		last = entry;
		entry.value.then(
			() => (entry.settledAt = now()),
			() => last === entry && (last = null)
		);
		return entry.value;
	};
}

/** GET /api/readyz's answer: every part checked afresh, shared by the calls of `ttlMs` (READINESS_CACHE_MS). */
export function serviceReadiness(
	parts: { ping: () => Promise<void>; models: Pick<ModelCatalog, 'readiness' | 'defaultModel'>; mcp: () => ServerStatus[] },
	ttlMs: number
): () => Promise<Readiness> {
	return sharedCheck(
		async () =>
			checkReadiness({
				database: await checkDatabase(parts.ping),
				models: await parts.models.readiness(),
				defaultModel: parts.models.defaultModel,
				mcp: parts.mcp()
			}),
		ttlMs
	);
}
