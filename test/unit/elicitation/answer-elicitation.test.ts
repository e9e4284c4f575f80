import { describe, expect, it } from 'vitest';
import type { ElicitationAnswer } from '../../../src/lib/protocol';
import { answerElicitation } from '../../../src/lib/server/elicitation/answer-elicitation';
import { Elicitations } from '../../../src/lib/server/elicitation/elicitations';
import { elicitationRefusalError } from '../../../src/lib/server/http/elicitation-answer';
import type { ForwardedAnswer } from '../../../src/lib/server/storage/storage-engine';

const form = { mode: 'form' as const, message: 'Name?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };

/** A registry holding one open question of run r1, and the answers carried to other instances. */
function setUp(options: { shared: boolean; runsHere: string[] }) {
	const questions = new Elicitations({ timeoutMs: 60_000, now: () => '2026-01-01T00:00:00.000Z', publish: () => {}, log: () => {} });
	void questions.ask({ conversation: 'c1', run: 'r1', server: 's', tool: 's__t' }, form, new AbortController().signal);
	const id = questions.pending('c1')[0]!.id;
	const carried: [string, string, ElicitationAnswer][] = [];
	const shared = {
		answer: async (runId: string, questionId: string, answer: ElicitationAnswer): Promise<ForwardedAnswer> => {
			carried.push([runId, questionId, answer]);
			return { refused: 'no-answer' };
		}
	};
	const parts = { elicitations: questions, runsHere: (run: string) => options.runsHere.includes(run), shared: options.shared ? shared : null };
	return { id, carried, answer: (run: string, questionId: string) => answerElicitation(parts, run, questionId, { action: 'decline' }) };
}

describe('answerElicitation: taken here, or carried to the instance running the call', () => {
	it('a question this process holds or knows is answered here, never carried', async () => {
		const { id, carried, answer } = setUp({ shared: true, runsHere: [] });
		expect(await answer('r2', id)).toEqual({ refused: 'other-run' });
		expect(await answer('r1', id)).toEqual({ action: 'decline' });
		expect(await answer('r1', id)).toEqual({ refused: 'closed' });
		expect(carried).toEqual([]);
	});

	it('an unknown question is carried only for a run another instance executes', async () => {
		const { carried, answer } = setUp({ shared: true, runsHere: ['r1'] });
		expect(await answer('r1', 'unknown')).toEqual({ refused: 'not-found' });
		expect(await answer('r9', 'unknown')).toEqual({ refused: 'no-answer' });
		expect(carried).toEqual([['r9', 'unknown', { action: 'decline' }]]);
		const alone = setUp({ shared: false, runsHere: [] });
		expect(await alone.answer('r9', 'unknown')).toEqual({ refused: 'not-found' });
	});

	it('each refusal has its API code', () => {
		const cases: [Extract<ForwardedAnswer, { refused: string }>, string, number][] = [
			[{ refused: 'not-found' }, 'NOT_FOUND', 404],
			[{ refused: 'other-run' }, 'ELICITATION_OF_ANOTHER_RUN', 409],
			[{ refused: 'closed' }, 'ELICITATION_CLOSED', 409],
			[{ refused: 'invalid', field: 'name', message: 'required' }, 'BAD_REQUEST', 400],
			[{ refused: 'no-answer' }, 'ELICITATION_OWNER_UNAVAILABLE', 503]
		];
		for (const [refusal, code, status] of cases) expect(elicitationRefusalError(refusal)).toMatchObject({ code, status });
	});
});
