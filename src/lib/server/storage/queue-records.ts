// Queued messages as every engine selects them.

import type { QueuedMessage } from '../../protocol';

/** A queued message as every engine selects it (timestamps as ISO text). */
export type QueuedRow = {
	id: string;
	message: string;
	created_at: string;
	edit_of: string | null;
	regenerate: string | null;
	model: string | null;
};

export function toQueuedMessage(r: QueuedRow): QueuedMessage {
	return {
		id: r.id,
		message: r.message,
		createdAt: r.created_at,
		...(r.edit_of ? { editOf: r.edit_of } : {}),
		...(r.regenerate ? { regenerate: r.regenerate } : {}),
		...(r.model ? { model: r.model } : {})
	};
}
