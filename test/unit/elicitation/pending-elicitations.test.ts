import { describe, expect, it } from 'vitest';
import type { ConversationSummary, PendingElicitation, RunRecord } from '../../../src/lib/protocol';
import { Elicitations } from '../../../src/lib/server/elicitation/elicitations';
import { pendingElicitations } from '../../../src/lib/server/elicitation/pending-elicitations';

const form = { mode: 'form' as const, message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };
const elsewhere = { id: 'q-remote', run: 'r2', server: 's', tool: 's__t', message: 'Remote?', mode: 'form', expiresAt: '2026-01-01T00:10:00.000Z' } as PendingElicitation;

function setUp(options: { shared: boolean; runsHere: string[]; latest: Pick<RunRecord, 'id' | 'status'> }) {
	const questions = new Elicitations({ timeoutMs: 60_000, now: () => '2026-01-01T00:00:00.000Z', publish: () => {}, log: () => {} });
	const read: string[] = [];
	const parts = {
		elicitations: questions,
		runsHere: (run: string) => options.runsHere.includes(run),
		shared: options.shared
			? {
					openQuestions: async (runId: string) => {
						read.push(runId);
						return [elsewhere];
					}
				}
			: null,
		runs: { list: async () => [options.latest as RunRecord] }
	};
	const detail = (status: ConversationSummary['status']) => pendingElicitations(parts, { id: 'c1', status } as ConversationSummary);
	return { questions, read, detail };
}

describe('pendingElicitations: a conversation\'s open questions, wherever its call runs', () => {
	it('those this process holds, without asking another instance', async () => {
		const { questions, read, detail } = setUp({ shared: true, runsHere: [], latest: { id: 'r1', status: 'running' } });
		void questions.ask({ conversation: 'c1', run: 'r1', server: 's', tool: 's__t' }, form, new AbortController().signal);
		expect((await detail('running')).map((q) => q.run)).toEqual(['r1']);
		expect(read).toEqual([]);
	});

	it('a running run another instance executes: what its kept events show open', async () => {
		const { read, detail } = setUp({ shared: true, runsHere: [], latest: { id: 'r2', status: 'running' } });
		expect(await detail('running')).toEqual([elsewhere]);
		expect(read).toEqual(['r2']);
	});

	it('no other instance is asked for a conversation not running, a run executed here, or one process alone', async () => {
		for (const [options, status] of [
			[{ shared: true, runsHere: [], latest: { id: 'r2', status: 'completed' } }, 'completed'],
			[{ shared: true, runsHere: ['c1'], latest: { id: 'r2', status: 'running' } }, 'running'],
			[{ shared: false, runsHere: [], latest: { id: 'r2', status: 'running' } }, 'running']
		] as const) {
			const { read, detail } = setUp({ ...options, runsHere: [...options.runsHere] });
			expect(await detail(status)).toEqual([]);
			expect(read).toEqual([]);
		}
	});
});
