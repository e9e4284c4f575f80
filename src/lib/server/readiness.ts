import type Database from 'better-sqlite3';
import type { Check, ProviderCheck, Readiness } from '../protocol';
import type { ServerStatus } from './mcp/server-supervisor';
import { parseModelId } from './models/model-id';

function checkDatabase(db: Database.Database): Check {
	try {
		db.prepare('SELECT 1').get();
		return { status: 'ok' };
	} catch (e) {
		return { status: 'error', message: `Database: ${(e as Error).message}` };
	}
}

/**
 * Database, default model, each model provider and each MCP server, separately; `error` names
 * everything that is not up (a down default provider once, by the model check).
 */
export function checkReadiness(parts: {
	db: Database.Database;
	models: { model: Check; providers: Record<string, ProviderCheck> };
	defaultModel: string;
	mcp: ServerStatus[];
}): Readiness {
	const database = checkDatabase(parts.db);
	const { model, providers } = parts.models;
	const defaultProvider = parseModelId(parts.defaultModel)?.provider;
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
		...Object.entries(providers).flatMap(([name, c]) =>
			c.status === 'ok' || name === defaultProvider ? [] : [`Model server "${name}": ${c.message}`]
		),
		...Object.entries(mcp).flatMap(([name, c]) => (c.status === 'ok' ? [] : [`MCP server "${name}" is ${c.status}`]))
	];
	return {
		status: down.length ? 'error' : 'ok',
		...(down.length ? { message: down.join('; ') } : {}),
		defaultModel: parts.defaultModel,
		checks: { database, model, providers, mcp }
	};
}
