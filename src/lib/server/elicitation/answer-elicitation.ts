import type { ElicitationAnswer } from '../../protocol';
import type { ForwardedAnswer, SharedRuns } from '../storage/storage-engine';
import type { Elicitations } from './elicitations';

export type AnswerElicitationParts = {
	elicitations: Pick<Elicitations, 'answer'>;
	/** Whether the run executes in this process. */
	runsHere: (runId: string) => boolean;
	/** Runs other instances execute (PostgreSQL); null on one process. */
	shared: Pick<SharedRuns, 'answer'> | null;
};

/**
 * POST /api/runs/<run>/elicitations/<id>, wherever the question's call runs. This process answers
 * what it knows: a question it holds or has closed, and any question of a run it executes. A
 * question it has never seen, of a run it does not execute, is carried to the instance that does
 * (PostgreSQL), and the answer is what it came to there, once that instance has taken or refused it.
 */
export async function answerElicitation(parts: AnswerElicitationParts, runId: string, id: string, answer: ElicitationAnswer): Promise<ForwardedAnswer> {
	const here = parts.elicitations.answer(runId, id, answer);
	if (!('refused' in here) || here.refused !== 'not-found' || !parts.shared || parts.runsHere(runId)) return here;
	return parts.shared.answer(runId, id, answer);
}
