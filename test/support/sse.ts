import { EventSourceParserStream, type EventSourceMessage } from 'eventsource-parser/stream';

export type SseEvent = { id?: string; event: string; data: unknown };

/** Reads an SSE response to its end (the server closes after a terminal event). */
export async function readEvents(response: Response): Promise<SseEvent[]> {
	const events: SseEvent[] = [];
	for await (const message of sseMessages(response)) events.push(message);
	return events;
}

export async function* sseMessages(response: Response): AsyncGenerator<SseEvent> {
	const stream = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
	for await (const m of stream as unknown as AsyncIterable<EventSourceMessage>) {
		yield { ...(m.id ? { id: m.id } : {}), event: m.event ?? 'message', data: JSON.parse(m.data) };
	}
}

/** Opens the run stream of a conversation and collects it to the end. */
export async function followRun(baseUrl: string, conversation: string, lastEventId?: number): Promise<SseEvent[]> {
	const res = await fetch(`${baseUrl}/api/chat?conversation=${conversation}`, {
		headers: lastEventId ? { 'Last-Event-ID': String(lastEventId) } : {}
	});
	return readEvents(res);
}

export function tokensOf(events: SseEvent[]): string {
	return events.filter((e) => e.event === 'token').map((e) => e.data as string).join('');
}
