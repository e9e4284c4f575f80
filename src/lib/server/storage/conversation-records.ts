// Conversations as every engine selects them, and the title a first message gives one.

import type { ConversationSummary, RunStatus } from '../../protocol';

/** A conversation row with its latest run, as every engine selects it (timestamps as ISO text). */
export type SummaryRow = {
	id: string;
	title: string;
	created_at: string;
	updated_at: string;
	message_count: number;
	model: string | null;
	status: RunStatus | null;
	error_code: string | null;
	error_message: string | null;
};

export function toSummary(row: SummaryRow): ConversationSummary {
	return {
		id: row.id,
		title: row.title,
		createdAt: row.created_at,
		updatedAt: row.updated_at,
		messageCount: row.message_count,
		model: row.model,
		status: row.status,
		...(row.error_code ? { error: { code: row.error_code, message: row.error_message ?? '' } } : {})
	};
}

const TITLE_MAX = 50;

/** The title of a conversation whose first message says nothing, or that has none yet (POST /threads). */
export const UNTITLED = 'New Conversation';

export function titleFromMessage(message: string): string {
	const firstLine = message.trim().split('\n', 1)[0]!.trim();
	if (!firstLine) return UNTITLED;
	return firstLine.length > TITLE_MAX ? `${firstLine.slice(0, TITLE_MAX)}...` : firstLine;
}
