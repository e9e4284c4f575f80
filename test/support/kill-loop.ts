import fs from 'node:fs';
import type { Script } from './model-script';
import { currentTurn } from './scripts';

/**
 * The kill loop shared by the SQLite and the several-instances tests (issue 21, item 5): conversations
 * whose one step makes CALLS_PER_RUN memory writes, all at once, so the memory server's writes queue
 * behind each other; the service is killed at a named point while they wait, restarted, and every
 * unfinished conversation resumed. What counts is a call reported unknown ("interrupted by a crash
 * before its outcome was recorded") whose entity the memory file never got: a call that never
 * reached its server, reported as one that may have happened.
 */

export const CONVERSATIONS = 20;
export const CALLS_PER_RUN = 8;
export const KILLS = 16;

const UNKNOWN = /interrupted by a crash before its outcome was recorded/;

export const entityName = (conversation: number, call: number) => `kill-${conversation}-${call}`;

/** "write batch <n>": eight create_entities calls in one step, then a short answer. */
export function killLoopScript(): Script {
	return (request) => {
		const { user, after } = currentTurn(request);
		const n = Number(/write batch (\d+)/.exec(user)?.[1] ?? -1);
		if (after.some((m) => m.role === 'tool')) return { content: `batch ${n} written` };
		return {
			toolCalls: Array.from({ length: CALLS_PER_RUN }, (_, j) => ({
				name: 'memory__create_entities',
				arguments: { entities: [{ name: entityName(n, j), entityType: 'test', observations: ['kill loop'] }] }
			}))
		};
	};
}

/** The service's crash point for kill `round`: after a few writes reached the server, never the same count twice in a row. */
export const crashAt = (round: number) => `after-tool-side-effect:${4 + (round % 4)}`;

type Detail = {
	conversation: { status: string };
	messages: { role: string; content: string; toolCalls?: { id?: string; args: Record<string, unknown> }[]; toolCallId?: string }[];
};

export type KillLoopCount = { calls: number; unknown: number; unknownNeverReached: number; finished: number };

/** Names in the memory server's file (one JSON object a line). */
export function memoryNames(file: string): Set<string> {
	if (!fs.existsSync(file)) return new Set();
	const names = fs
		.readFileSync(file, 'utf8')
		.split('\n')
		.filter(Boolean)
		.map((line) => JSON.parse(line) as { type: string; name?: string })
		.filter((r) => r.type === 'entity')
		.map((r) => r.name!);
	return new Set(names);
}

/** Counts, over the conversations' details, the calls reported unknown and those of them that never reached memory. */
export function countUnknown(details: Detail[], memory: Set<string>): KillLoopCount {
	const count: KillLoopCount = { calls: 0, unknown: 0, unknownNeverReached: 0, finished: 0 };
	for (const d of details) {
		if (d.conversation.status === 'completed') count.finished++;
		const args = new Map<string, Record<string, unknown>>();
		for (const m of d.messages) for (const c of m.toolCalls ?? []) if (c.id) args.set(c.id, c.args);
		for (const m of d.messages) {
			if (m.role !== 'tool') continue;
			count.calls++;
			if (!UNKNOWN.test(m.content)) continue;
			count.unknown++;
			const name = (args.get(m.toolCallId ?? '')?.entities as { name: string }[] | undefined)?.[0]?.name;
			if (!name || !memory.has(name)) count.unknownNeverReached++;
		}
	}
	return count;
}

/** The pids of a process's children, read before it dies: once it is killed they are orphans. */
export function childrenOf(pid: number): number[] {
	try {
		return fs
			.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
			.trim()
			.split(/\s+/)
			.filter(Boolean)
			.map(Number);
	} catch {
		return [];
	}
}

/**
 * Resolves when each of `pids` has exited. A killed service's memory child reads to the end of its
 * stdin and exits; until it has, it may still be writing the file the next one loads.
 */
export async function exitedAll(pids: number[]): Promise<void> {
	for (const pid of pids) {
		for (;;) {
			try {
				process.kill(pid, 0);
			} catch {
				break;
			}
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
	}
}
