import { ElicitationAnswerSchema, type ElicitationAnswer } from '../../protocol';
import type { ForwardedAnswer } from '../storage/storage-engine';
import { ApiError } from '../errors';

/** POST /api/runs/<run>/elicitations/<id>'s body. */
export function parseElicitationAnswer(body: unknown): ElicitationAnswer {
	const parsed = ElicitationAnswerSchema.safeParse(body);
	if (parsed.success) return parsed.data;
	throw new ApiError('BAD_REQUEST', 'The body must be {"action": "accept", "content": {…}}, {"action": "decline"} or {"action": "cancel"}');
}

/** The error a refused answer to a question of a run that exists is sent as. */
export function elicitationRefusalError(refusal: Extract<ForwardedAnswer, { refused: string }>): ApiError {
	switch (refusal.refused) {
		case 'not-found':
			return new ApiError('NOT_FOUND', 'No question with this id was asked in this run');
		case 'other-run':
			return new ApiError('ELICITATION_OF_ANOTHER_RUN', 'This question was asked in another run');
		case 'closed':
			return new ApiError('ELICITATION_CLOSED', 'This question is closed: answered, timed out, or its call ended');
		case 'invalid':
			return new ApiError('BAD_REQUEST', `content.${refusal.field}: ${refusal.message}`);
		case 'no-answer':
			return new ApiError('ELICITATION_OWNER_UNAVAILABLE', 'The instance running this question\'s call did not take the answer in time; try again');
	}
}
