/**
 * Pure. The transcript a reader sees: the durable messages, then what the live run added that the
 * durable messages do not hold yet. Each tool call becomes a card joined to its result by id.
 *
 * Why the join by tool-call id: a page that attaches to a running run fetches the durable messages
 * (the checkpoint, which may already hold this run's finished steps) and replays the run's events
 * from the start. A live segment whose tool calls are already durable, or a live result already
 * durable, is that same step seen twice and is left out.
 */
import type { LiveItem, LiveRun } from './live-run';
import type { MessageDto, ModelUsage, ReusedFrom, Versions } from '../protocol';

/** `reusedFrom`: the result came from the same call on another branch, which was not made again. */
export type ToolResult = { content: string; status: 'success' | 'error'; reusedFrom?: ReusedFrom };

export type ToolCard = { key: string; id: string; name: string; args: unknown; result: ToolResult | null };

/**
 * Durable messages carry their `id`, and `versions` where branches diverge. The last assistant item
 * of a turn whose answer is all durable carries `regenerate`: the turn's first assistant message,
 * which a regenerate of the whole answer starts again from.
 */
export type TranscriptItem =
	| { kind: 'user'; key: string; text: string; id?: string; versions?: Versions }
	| {
			kind: 'assistant';
			key: string;
			text: string;
			reasoning: string;
			tools: ToolCard[];
			live: boolean;
			id?: string;
			versions?: Versions;
			regenerate?: string;
			/** Which model gave it and what its call used: known once the answer is durable. */
			model?: string;
			usage?: ModelUsage;
	  }
	/** A result whose call is not in view (never expected, but never hidden either). */
	| { kind: 'tool'; key: string; name: string; result: ToolResult };

type Source =
	| { from: 'durable'; message: MessageDto; index: number }
	| { from: 'live'; item: LiveItem };

function liveItemsNotDurable(base: readonly MessageDto[], live: LiveRun | null): LiveItem[] {
	if (!live) return [];
	const durableCalls = new Set(base.flatMap((m) => (m.toolCalls ?? []).map((c) => c.id).filter(Boolean)));
	const durableResults = new Set(base.flatMap((m) => (m.role === 'tool' && m.toolCallId ? [m.toolCallId] : [])));
	return live.items.filter((item) =>
		item.kind === 'assistant'
			? !item.toolCalls.some((c) => durableCalls.has(c.id))
			: !durableResults.has(item.toolCallId)
	);
}

function uniqueKey(seen: Set<string>, wanted: string, index: number): string {
	const key = wanted && !seen.has(wanted) ? wanted : `${wanted || 'm'}#${index}`;
	seen.add(key);
	return key;
}

export function buildTranscript(base: readonly MessageDto[], live: LiveRun | null): TranscriptItem[] {
	const sources: Source[] = [
		...base.map((message, index): Source => ({ from: 'durable', message, index })),
		...liveItemsNotDurable(base, live).map((item): Source => ({ from: 'live', item }))
	];
	const items: TranscriptItem[] = [];
	const cards = new Map<string, ToolCard>();
	const keys = new Set<string>();
	const lastLive = live?.outcome ? null : live?.items.at(-1);

	sources.forEach((source, index) => {
		if (source.from === 'durable') {
			const m = source.message;
			const key = uniqueKey(keys, m.id, index);
			const durable = { id: m.id, ...(m.versions ? { versions: m.versions } : {}) };
			if (m.role === 'user') items.push({ kind: 'user', key, text: m.content, ...durable });
			else if (m.role === 'assistant') {
				const tools = (m.toolCalls ?? []).map((c, i): ToolCard => ({ key: `${key}/${c.id ?? i}`, id: c.id ?? '', name: c.name, args: c.args, result: null }));
				tools.forEach((t) => t.id && cards.set(t.id, t));
				items.push({
					kind: 'assistant',
					key,
					text: m.content,
					reasoning: m.reasoning ?? '',
					tools,
					live: false,
					...durable,
					...(m.model ? { model: m.model } : {}),
					...(m.usage ? { usage: m.usage } : {})
				});
			} else {
				const result: ToolResult = {
					content: m.content,
					status: m.status === 'error' ? 'error' : 'success',
					...(m.reusedFrom ? { reusedFrom: m.reusedFrom } : {})
				};
				const card = m.toolCallId ? cards.get(m.toolCallId) : undefined;
				if (card && !card.result) card.result = result;
				else items.push({ kind: 'tool', key, name: m.name ?? 'tool', result });
			}
			return;
		}
		const item = source.item;
		const key = uniqueKey(keys, item.key, index);
		if (item.kind === 'assistant') {
			const tools = item.toolCalls.map((c, i): ToolCard => ({ key: `${key}/${c.id || i}`, id: c.id, name: c.name, args: c.args, result: null }));
			tools.forEach((t) => t.id && cards.set(t.id, t));
			items.push({ kind: 'assistant', key, text: item.text, reasoning: item.reasoning, tools, live: item === lastLive });
		} else {
			const result: ToolResult = { content: item.content, status: item.status, ...(item.reusedFrom ? { reusedFrom: item.reusedFrom } : {}) };
			const card = cards.get(item.toolCallId);
			if (card && !card.result) card.result = result;
			else items.push({ kind: 'tool', key, name: item.name, result });
		}
	});
	markRegenerate(items);
	return items;
}

/** Gives the last assistant item of each turn (answer all durable) its turn's first assistant message. */
function markRegenerate(items: TranscriptItem[]): void {
	let turn: Extract<TranscriptItem, { kind: 'assistant' }>[] = [];
	const close = () => {
		const last = turn.at(-1);
		if (last && turn.every((i) => i.id !== undefined)) last.regenerate = turn[0]!.id;
		turn = [];
	};
	for (const item of items) {
		if (item.kind === 'user') close();
		else if (item.kind === 'assistant') turn.push(item);
	}
	close();
}
