import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse, toApiError } from '$lib/server/http/api-error';
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

// A failure (the database away) is the stream's one event, so the page shows its code: an
// EventSource reads no events from a response that is not a 200.
export const GET: RequestHandler = (event) =>
	runStream(event).catch((e) => {
		const error = toApiError(e);
		return singleEventResponse({ event: 'chat-error', data: { code: error.code, message: error.message } });
	});

async function runStream({ url, request }: Parameters<RequestHandler>[0]): Promise<Response> {
	const rt = runtime();
	const id = parseUuid(url.searchParams.get('conversation'));
	if (!id) return singleEventResponse({ event: 'chat-error', data: { code: 'BAD_REQUEST', message: 'Invalid Conversation ID' } });
	const lastEventId = parseLastEventId(request.headers.get('last-event-id'));
	const options = (runId: string) => ({
		maxFollowers: rt.settings.MAX_STREAMS_PER_RUN,
		backlogLimitBytes: rt.settings.SSE_READER_BACKLOG_BYTES,
		onDrop: (e: Error) => {
			rt.telemetry.metrics.sseDropped.inc();
			rt.log(`Run ${runId}: dropped a slow SSE reader (${e.message}); it may reconnect with Last-Event-ID`);
		},
		opened: () => rt.telemetry.sseStreamOpened()
	});
	const run = rt.runService.registry.get(id);
	if (run) return liveEventResponse(run.log, lastEventId, request.signal, options(run.id));
	if (rt.shared) {
		// A run another instance executes: followed from the events it keeps.
		const latest = (await rt.storage.runs.list(id))[0];
		if (latest?.status === 'running') {
			try {
				return await rt.shared.follow(latest.id, lastEventId, request.signal, options(latest.id));
			} catch (e) {
				// Its events could not be read (the database away): the conversation's state below is all there is.
				rt.log(`Run ${latest.id}: following it from this instance failed`, e);
			}
		}
	}
	const conversation = await rt.storage.conversations.get(id);
	if (!conversation) {
		return singleEventResponse({
			event: 'chat-error',
			data: { code: 'NOT_FOUND', message: 'Conversation Not Found', conversation: id }
		});
	}
	return singleEventResponse({ event: 'end', data: { conversation: id, status: conversation.status } });
}
