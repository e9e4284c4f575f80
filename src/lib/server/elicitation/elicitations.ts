import { randomUUID } from 'node:crypto';
import type { ElicitRequest, ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { ElicitationCompleted } from '../mcp/question-router';
import {
	checkContent,
	RequestedSchemaSchema,
	type ElicitationAnswer,
	type ElicitationAnswerOutcome,
	type PendingElicitation,
	type RequestedSchema,
	type RunEvent
} from '../../protocol';

/** The call a question belongs to. */
export type AskedBy = { conversation: string; run: string; server: string; tool: string };

export type ElicitationsParts = {
	/** ELICITATION_TIMEOUT_MS: unanswered by then, the question is answered `cancel`. */
	timeoutMs: number;
	now: () => string;
	/** Onto the run's own event stream, if the run is live here. */
	publish: (runId: string, event: RunEvent) => void;
	log: (line: string) => void;
};

/** How a question closed, as `elicitation-closed` says. */
type ClosedAs = ElicitResult['action'] | 'ended' | 'complete';

type Open = {
	question: PendingElicitation;
	conversation: string;
	schema?: RequestedSchema;
	settle: (result: ElicitResult, action: ClosedAs) => void;
};

/** How many closed questions are remembered, so a late answer is told "closed" (409) rather than "unknown" (404). */
const REMEMBERED = 1_000;

/**
 * The questions tool servers ask during calls (MCP elicitation), in memory: a question lives as
 * long as its call and its process, like the call itself. It is shown on the run's stream and in
 * the conversation's detail, answered once (POST /api/runs/<run>/elicitations/<id>), and closed by
 * its answer, by ELICITATION_TIMEOUT_MS (`cancel`), by the end of its call or, for a URL
 * question, by the server's word that its interaction has finished, whichever comes first. A URL
 * question is never opened here: the page opens it when the person confirms.
 */
export class Elicitations {
	private readonly open = new Map<string, Open>();
	/** Closed ids and their run, oldest first. */
	private readonly closed = new Map<string, string>();

	constructor(private readonly parts: ElicitationsParts) {}

	ask(by: AskedBy, request: ElicitRequest['params'], signal: AbortSignal): Promise<ElicitResult> {
		const shown = this.shownAs(by, request);
		if (!shown) return Promise.resolve({ action: 'decline' });
		if (signal.aborted) return Promise.resolve({ action: 'cancel' });
		const id = randomUUID();
		const question: PendingElicitation = {
			id,
			run: by.run,
			server: by.server,
			tool: by.tool,
			...shown.question,
			expiresAt: new Date(Date.parse(this.parts.now()) + this.parts.timeoutMs).toISOString()
		};
		return new Promise<ElicitResult>((resolve) => {
			// The server's word that the person finished what it sent them to do is an accept: they took part.
			const onAbort = () => (signal.reason instanceof ElicitationCompleted ? settle({ action: 'accept' }, 'complete') : settle({ action: 'cancel' }, 'ended'));
			const timer = setTimeout(() => settle({ action: 'cancel' }, 'cancel'), this.parts.timeoutMs);
			const settle = (result: ElicitResult, action: ClosedAs) => {
				if (!this.open.delete(id)) return;
				clearTimeout(timer);
				signal.removeEventListener('abort', onAbort);
				this.remember(id, by.run);
				this.parts.publish(by.run, { event: 'elicitation-closed', data: { conversation: by.conversation, run: by.run, id, action } });
				resolve(result);
			};
			this.open.set(id, { question, conversation: by.conversation, schema: shown.schema, settle });
			signal.addEventListener('abort', onAbort, { once: true });
			this.parts.publish(by.run, { event: 'elicitation', data: { conversation: by.conversation, run: by.run, elicitation: question } });
		});
	}

	/** The person's answer; refused, changing nothing, unless the question is open, the run's, and the content fits. */
	answer(runId: string, id: string, answer: ElicitationAnswer): ElicitationAnswerOutcome {
		const open = this.open.get(id);
		const owner = open?.question.run ?? this.closed.get(id);
		if (owner === undefined) return { refused: 'not-found' };
		if (owner !== runId) return { refused: 'other-run' };
		if (!open) return { refused: 'closed' };
		if (answer.action !== 'accept') {
			open.settle({ action: answer.action }, answer.action);
			return { action: answer.action };
		}
		if (!open.schema) {
			if (answer.content !== undefined) return { refused: 'invalid', field: 'content', message: 'a URL question takes no content' };
			open.settle({ action: 'accept' }, 'accept');
			return { action: 'accept' };
		}
		const checked = checkContent(open.schema, answer.content ?? {});
		if (!checked.ok) return { refused: 'invalid', field: checked.field, message: checked.message };
		open.settle({ action: 'accept', content: checked.content }, 'accept');
		return { action: 'accept' };
	}

	/** The conversation's open questions, oldest first. */
	pending(conversationId: string): PendingElicitation[] {
		return [...this.open.values()].filter((o) => o.conversation === conversationId).map((o) => o.question);
	}

	/** What the page is shown of the request; null for one Sophos will not show (answered `decline`). */
	private shownAs(by: AskedBy, request: ElicitRequest['params']) {
		if (request.mode === 'url') {
			let url: URL;
			try {
				url = new URL(request.url);
			} catch {
				url = new URL('invalid:');
			}
			// Only a web page is ever offered to open: not javascript:, file: or a custom scheme.
			if (url.protocol !== 'https:' && url.protocol !== 'http:') {
				this.parts.log(`MCP: server "${by.server}" asked to open a URL that is not http(s); declined`);
				return null;
			}
			return { question: { mode: 'url' as const, message: request.message, url: url.href } };
		}
		const schema = RequestedSchemaSchema.safeParse(request.requestedSchema);
		if (!schema.success) {
			this.parts.log(`MCP: server "${by.server}" asked with a form schema Sophos cannot show; declined`);
			return null;
		}
		return { question: { mode: 'form' as const, message: request.message, requestedSchema: schema.data }, schema: schema.data };
	}

	private remember(id: string, runId: string): void {
		this.closed.set(id, runId);
		if (this.closed.size > REMEMBERED) this.closed.delete(this.closed.keys().next().value!);
	}
}
