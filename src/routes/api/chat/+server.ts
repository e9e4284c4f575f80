import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import type { Runtime } from '$lib/server/runtime';
import { errorResponse, jsonResponse, toApiError } from '$lib/server/http/api-error';
import { readJsonBody } from '$lib/server/http/request-body';
import { parseChatRequest } from '$lib/server/http/chat-request';
import { withAttachments } from '$lib/server/mcp/attachments';
import { runRefusalError, unlessRefused } from '$lib/server/http/run-refusal-error';
import { parseUuid } from '$lib/protocol/uuid';
import { parseLastEventId, singleEventResponse } from '$lib/server/stream/sse-response';
import { runStreamOptions } from '$lib/server/stream/run-stream-options';

type ChatPort = Pick<Runtime, 'settings' | 'runService' | 'models' | 'resources' | 'log' | 'telemetry'>;

export const POST: RequestHandler = async ({ request }) => {
	try {
		const rt: ChatPort = runtime();
		let parsed = parseChatRequest(await readJsonBody(request), rt.settings.MAX_MESSAGE_CHARS);
		if (parsed.kind === 'cancel') return jsonResponse(unlessRefused(await rt.runService.cancelConversation(parsed.conversation)));
		if (parsed.kind === 'message' && parsed.attachments) {
			// Read before the run is claimed: the resources become the message's text, checkpointed with it.
			const { attachments, ...message } = parsed;
			parsed = { ...message, ...unlessRefused(await withAttachments(message.message, attachments, rt.resources)) };
		}
		const started = unlessRefused(await rt.runService.start(unlessRefused(await rt.models.choose(parsed))));
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
	const rt: ChatPort = runtime();
	const id = parseUuid(url.searchParams.get('conversation'));
	if (!id) return singleEventResponse({ event: 'chat-error', data: { code: 'BAD_REQUEST', message: 'Invalid Conversation ID' } });
	const run = url.searchParams.get('run');
	const started = run === null ? undefined : parseUuid(run);
	if (started === null) return singleEventResponse({ event: 'chat-error', data: { code: 'BAD_REQUEST', message: 'Invalid Run ID' } });
	const lastEventId = parseLastEventId(request.headers.get('last-event-id'));
	const followed = await rt.runService.follow(id, lastEventId, request.signal, runStreamOptions(rt.settings, rt.telemetry, rt.log), { run: started });
	if (followed instanceof Response) return followed;
	const { code, message } = runRefusalError(followed);
	return singleEventResponse({ event: 'chat-error', data: { code, message, conversation: id } });
}
