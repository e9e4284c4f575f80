import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import { markdownTranscript } from '$lib/server/conversations/markdown-transcript';
import { checkpointJsonl } from '$lib/server/conversations/checkpoint-jsonl';
import { parseBranchesQuery } from '$lib/server/http/list-query';

export const GET: RequestHandler = async ({ params, url }) => {
	try {
		const rt = runtime();
		const conversation = await requireConversation(rt.storage.conversations, params.conversationId);
		if (url.searchParams.get('format') === 'jsonl') {
			const only = parseBranchesQuery(url.searchParams) === 'all' ? undefined : await rt.branchReader.activeCheckpoints(conversation.id);
			const lines = checkpointJsonl(rt.threads.history(conversation.id, only));
			const encoder = new TextEncoder();
			const body = new ReadableStream<Uint8Array>({
				async pull(controller) {
					const { done, value } = await lines.next();
					if (done) controller.close();
					else controller.enqueue(encoder.encode(value));
				}
			});
			return new Response(body, {
				headers: {
					'Content-Type': 'application/x-ndjson; charset=utf-8',
					'Content-Disposition': `attachment; filename="${conversation.id}.checkpoints.jsonl"`
				}
			});
		}
		const { messages } = await rt.threads.state(conversation.id);
		return new Response(markdownTranscript(conversation, messages), {
			headers: {
				'Content-Type': 'text/markdown; charset=utf-8',
				'Content-Disposition': `attachment; filename="${conversation.id}.md"`
			}
		});
	} catch (e) {
		return errorResponse(e);
	}
};
