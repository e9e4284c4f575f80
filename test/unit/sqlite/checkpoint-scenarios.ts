// The thread scenarios both equivalence tests (SQLite and PostgreSQL) run on a stock saver and on
// ours: each drives the agent graph on `saver` and returns the thread it built.

import { HumanMessage, RemoveMessage } from '@langchain/core/messages';
import type { RunnableConfig } from '@langchain/core/runnables';
import type { BaseCheckpointSaver } from '@langchain/langgraph-checkpoint';
import { buildAgentGraph, buildNestedGraph, humanTurn } from './checkpoint-agent-graph.js';
import { collect } from './checkpoint-compare.js';

export const thread = (id: string): RunnableConfig => ({ configurable: { thread_id: id } });

export async function turnsScenario(saver: BaseCheckpointSaver, id: string, turns: number): Promise<RunnableConfig> {
	const graph = buildAgentGraph(saver);
	for (let turn = 0; turn < turns; turn += 1) await graph.invoke(humanTurn(turn), thread(id));
	return thread(id);
}

/** A fork from an older checkpoint, continued on the new branch. */
export async function forkScenario(saver: BaseCheckpointSaver): Promise<RunnableConfig> {
	const graph = buildAgentGraph(saver);
	for (let turn = 0; turn < 6; turn += 1) await graph.invoke(humanTurn(turn), thread('fork'));
	const history = await collect(graph.getStateHistory(thread('fork')));
	const older = history.find((s) => s.next.length === 0 && s.values.messages.length === 12)!;
	const edited = new HumanMessage({ id: 'edited', content: 'An edited question?' });
	const forked = await graph.updateState(older.config, { messages: [edited] }, 'agent');
	await graph.invoke(null, forked);
	for (let turn = 6; turn < 8; turn += 1) await graph.invoke(humanTurn(turn), thread('fork'));
	return thread('fork');
}

/** A RemoveMessage: the history is no longer an extension of its parent. */
export async function removeScenario(saver: BaseCheckpointSaver): Promise<RunnableConfig> {
	const graph = buildAgentGraph(saver);
	for (let turn = 0; turn < 4; turn += 1) await graph.invoke(humanTurn(turn), thread('remove'));
	await graph.updateState(thread('remove'), { messages: [new RemoveMessage({ id: 'human-1' })] });
	for (let turn = 4; turn < 6; turn += 1) await graph.invoke(humanTurn(turn), thread('remove'));
	return thread('remove');
}

/** A copy of an older checkpoint (updateState as __copy__, put with empty newVersions). */
export async function copyScenario(saver: BaseCheckpointSaver): Promise<RunnableConfig> {
	const graph = buildAgentGraph(saver);
	for (let turn = 0; turn < 3; turn += 1) await graph.invoke(humanTurn(turn), thread('copy'));
	const history = await collect(graph.getStateHistory(thread('copy')));
	await graph.updateState(history[7]!.config, undefined, '__copy__');
	await graph.invoke(humanTurn(3), thread('copy'));
	return thread('copy');
}

/** Runs interrupted before tools and resumed with invoke(null); the last one left interrupted. */
export async function interruptScenario(saver: BaseCheckpointSaver): Promise<RunnableConfig> {
	const graph = buildAgentGraph(saver, { interruptBeforeTools: true });
	for (let turn = 0; turn < 3; turn += 1) {
		await graph.invoke(humanTurn(turn), thread('interrupt'));
		await graph.invoke(null, thread('interrupt'));
	}
	await graph.invoke(humanTurn(3), thread('interrupt'));
	return thread('interrupt');
}

/** A subgraph, whose checkpoints live in a child namespace. */
export async function nestedScenario(saver: BaseCheckpointSaver): Promise<RunnableConfig> {
	const graph = buildNestedGraph(saver);
	for (let turn = 0; turn < 3; turn += 1) await graph.invoke(humanTurn(turn), thread('nested'));
	return thread('nested');
}
