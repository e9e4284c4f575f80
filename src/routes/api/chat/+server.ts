import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseChatRequest } from '$lib/server/http/chat-request';
import { parseUuid } from '$lib/server/http/uuid';
import { requireConversation } from '$lib/server/http/conversation-param';
import { liveEventResponse, parseLastEventId, singleEventResponse } from '$lib/server/stream/sse-response';

export const POST: RequestHandler = async ({ request }) => {
	try {
		const rt = runtime();
		const parsed = parseChatRequest(await readJsonBody(request), rt.settings.MAX_MESSAGE_CHARS);
		if (parsed.kind === 'cancel') {
			await requireConversation(rt.storage.conversations, parsed.conversation);
			return jsonResponse(await rt.runService.cancelConversation(parsed.conversation));
		}
		const started = await rt.runService.start(await rt.models.choose(parsed));
		return jsonResponse(started, 'queued' in started ? 202 : 200);
	} catch (e) {
		return errorResponse(e);
	}
};

export const GET: RequestHandler = async ({ url, request }) => {
	const rt = runtime();
	const id = parseUuid(url.searchParams.get('conversation'));
	if (!id) return singleEventResponse({ event: 'chat-error', data: { code: 'BAD_REQUEST', message: 'Invalid Conversation ID' } });
	const run = rt.runService.registry.get(id);
	if (run) {
		return liveEventResponse(run.log, parseLastEventId(request.headers.get('last-event-id')), request.signal, {
			maxFollowers: rt.settings.MAX_STREAMS_PER_RUN,
			backlogLimitBytes: rt.settings.SSE_READER_BACKLOG_BYTES,
			onDrop: (e) => rt.log(`Run ${run.id}: dropped a slow SSE reader (${e.message}); it may reconnect with Last-Event-ID`)
		});
	}
	const conversation = await rt.storage.conversations.get(id);
	if (!conversation) {
		return singleEventResponse({
			event: 'chat-error',
			data: { code: 'NOT_FOUND', message: 'Conversation Not Found', conversation: id }
		});
	}
	return singleEventResponse({ event: 'end', data: { conversation: id, status: conversation.status } });
};
