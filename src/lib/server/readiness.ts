import type Database from 'better-sqlite3';
import type { Check, Readiness } from '../protocol';
import type { ServerStatus } from './mcp/server-supervisor';


const TAGS_TIMEOUT_MS = 3000;

/** Exact match: "qwen3" is served by "qwen3" or "qwen3:latest", never by "qwen3-coder". */
export function modelIsListed(names: string[], model: string): boolean {
	return names.some((n) => n === model || (!model.includes(':') && n === `${model}:latest`));
}

async function checkModel(host: string, model: string): Promise<Check> {
	try {
		const res = await fetch(new URL('/api/tags', host), { signal: AbortSignal.timeout(TAGS_TIMEOUT_MS) });
		if (!res.ok) return { status: 'error', message: `Ollama at ${host} answered ${res.status}` };
		const body = (await res.json()) as { models?: { name?: string; model?: string }[] };
		const names = (body.models ?? []).flatMap((m) => [m.name, m.model].filter((n): n is string => !!n));
		return modelIsListed(names, model)
			? { status: 'ok' }
			: { status: 'error', message: `Model "${model}" is not pulled on ${host}: run \`ollama pull ${model}\`` };
	} catch {
		return { status: 'error', message: `Ollama is not reachable at ${host}: start it with \`ollama serve\`` };
	}
}

function checkDatabase(db: Database.Database): Check {
	try {
		db.prepare('SELECT 1').get();
		return { status: 'ok' };
	} catch (e) {
		return { status: 'error', message: `Database: ${(e as Error).message}` };
	}
}

/** Database, model and each MCP server, separately; `error` names everything that is not up. */
export async function checkReadiness(parts: {
	db: Database.Database;
	ollamaHost: string;
	model: string;
	mcp: ServerStatus[];
}): Promise<Readiness> {
	const database = checkDatabase(parts.db);
	const model = await checkModel(parts.ollamaHost, parts.model);
	const mcp = Object.fromEntries(
		parts.mcp.map((s): [string, Check & { tools: number }] => [
			s.name,
			{
				status: s.state === 'up' ? 'ok' : s.state === 'starting' ? 'starting' : 'error',
				tools: s.tools,
				...(s.state !== 'up' ? { message: s.error ?? `MCP server "${s.name}" is ${s.state}` } : {})
			}
		])
	);
	const down = [
		...(database.status !== 'ok' ? [database.message!] : []),
		...(model.status !== 'ok' ? [model.message!] : []),
		...Object.entries(mcp).flatMap(([name, c]) => (c.status === 'ok' ? [] : [`MCP server "${name}" is ${c.status}`]))
	];
	return {
		status: down.length ? 'error' : 'ok',
		...(down.length ? { message: down.join('; ') } : {}),
		checks: { database, model, mcp }
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
