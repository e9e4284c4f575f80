import type { RequestHandler } from './$types';
import { runtime } from '$lib/server/runtime-instance';
import { errorResponse, jsonResponse } from '$lib/server/http/api-error';
import { requireConversation } from '$lib/server/http/conversation-param';
import { parseBranchesQuery } from '$lib/server/http/list-query';
import { unlessRefused } from '$lib/server/http/run-refusal-error';

export const GET: RequestHandler = async ({ params, url }) => {
	try {
		const { conversations, bundles } = runtime();
		const conversation = await requireConversation(conversations, params.conversationId);
		if (url.searchParams.get('format') === 'bundle') {
			return jsonResponse(unlessRefused(await bundles.export(conversation.id)), 200, {
				'Content-Disposition': `attachment; filename="${conversation.id}.sophos.json"`
			});
		}
		if (url.searchParams.get('format') === 'jsonl') {
			const lines = await conversations.checkpointLines(conversation.id, parseBranchesQuery(url.searchParams));
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
		return new Response(await conversations.markdown(conversation), {
			headers: {
				'Content-Type': 'text/markdown; charset=utf-8',
				'Content-Disposition': `attachment; filename="${conversation.id}.md"`
			}
		});
	} catch (e) {
		return errorResponse(e);
	}
};
