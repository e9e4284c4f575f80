import fs from 'node:fs';
import path from 'node:path';
import type { ScriptedReply, Script } from './scripted-ollama';
import { ROOT, tempDir } from './service';

/**
 * What the upgrade fixtures hold (scripts/make-upgrade-fixtures.ts drives an earlier release
 * through it; test/integration/upgrade.test.ts carries on with this one): a finished conversation
 * with a tool call, one stopped by a crash after its tool call and before its answer, and, where
 * the release had a queue, one stopped during its first answer with a message queued behind it.
 */
export const UPGRADE_MESSAGES = {
	remember: 'Remember that Ada likes green tea.',
	ask: 'What does Ada like?',
	/** Crashed after its tool call, while the answer streamed: the resume point. */
	interrupted: 'Remember that Bob plays chess.',
	/** Crashed during its first answer, with `queued` waiting behind it. */
	story: 'Tell me a story.',
	queued: 'And another one, please.'
} as const;

/** The hold each crashed conversation reaches while its answer streams, when the script holds. */
export const UPGRADE_HOLDS = { interrupted: 'interrupted-answer', story: 'story-answer' } as const;

const lastUserText = (request: Parameters<Script>[0]) =>
	request.messages.findLast((m) => m.role === 'user')?.content ?? '';

/**
 * Replies decided by the conversation so far: a memory call for "Remember that <name> <fact>",
 * then an acknowledgement; a canned answer otherwise. `hold` stops the two crashed conversations'
 * answers midway (the fixture script kills the service there); without it every answer finishes.
 */
export function upgradeScript(hold: boolean): Script {
	return (request) => {
		const last = request.messages.at(-1);
		const text = lastUserText(request);
		const remembered = /^Remember that (\w+) (.+)\.$/.exec(text);
		const held = (name: string, reply: ScriptedReply): ScriptedReply =>
			hold ? { ...reply, hold: name, holdAfterChunks: 2 } : reply;
		if (last?.role === 'user' && remembered) {
			const [, name, fact] = remembered;
			const entity = { name, entityType: 'person', observations: [fact] };
			return { toolCalls: [{ name: 'memory__create_entities', arguments: { entities: [entity] } }] };
		}
		if (last?.role === 'tool') {
			const reply = { content: `Noted: ${remembered?.[1] ?? 'that'} ${remembered?.[2] ?? ''}.` };
			return text === UPGRADE_MESSAGES.interrupted ? held(UPGRADE_HOLDS.interrupted, reply) : reply;
		}
		if (text === UPGRADE_MESSAGES.story) {
			return held(UPGRADE_HOLDS.story, { content: 'Once upon a time there was a checkpoint that outlived its process.' });
		}
		return { content: `You said: ${text}` };
	};
}

/**
 * A config dir with only the memory server (from the running checkout's node_modules), in the
 * keys every release accepts, and the system prompt.
 */
export function memoryOnlyConfig(): string {
	const configDir = tempDir('sophos-config-');
	const { command, args, env } = JSON.parse(fs.readFileSync(path.join(ROOT, 'config/mcp.json'), 'utf8')).memory;
	fs.writeFileSync(path.join(configDir, 'mcp.json'), JSON.stringify({ memory: { command, args, env } }));
	fs.copyFileSync(path.join(ROOT, 'config/system.md'), path.join(configDir, 'system.md'));
	return configDir;
}

/** What scripts/make-upgrade-fixtures.ts recorded beside each fixture file. */
export type UpgradeManifest = {
	name: string;
	commit: string;
	layout: string;
	userVersion: number;
	/** Every row of the app's tables after the release was killed, by table. */
	rows: Record<string, Record<string, unknown>[]>;
	/** Every checkpoint as the release's own saver listed them: how many, and a hash of their JSON. */
	checkpoints: { count: number; sha256: string };
	/** What the release's API said just before the kill. */
	api: {
		conversations: { id: string; status: string; messageCount: number }[];
		details: Record<string, { messages: { role: string; content: string }[]; queue?: { message: string }[] }>;
		runs: Record<string, { runs: { id: string; status: string }[] }>;
	};
};

const FIXTURES = path.join(ROOT, 'test/fixtures/upgrade');

export function upgradeManifests(): UpgradeManifest[] {
	return fs
		.readdirSync(FIXTURES)
		.filter((name) => name.endsWith('.json'))
		.sort()
		.map((name) => JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as UpgradeManifest);
}

/** A data directory holding a copy of the fixture's file as its `sophos.db`. */
export function fixtureCopy(manifest: UpgradeManifest): string {
	const dataDir = tempDir('sophos-upgrade-');
	fs.copyFileSync(path.join(FIXTURES, `${manifest.name}.sqlite`), path.join(dataDir, 'sophos.db'));
	return dataDir;
}
