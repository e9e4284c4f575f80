import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { samples } from '../support/prometheus';
import { ScriptedOllama } from '../support/scripted-ollama';
import { currentTurn } from '../support/scripts';
import { Service } from '../support/service';
import { readEvents, sseMessages, tokensOf, type SseEvent } from '../support/sse';

const CHUNK_CHARS = 1000;
/**
 * 8 MB of answer: more than the socket buffers between the service and a client that stopped
 * reading can hold (a few MB on loopback), so the rest has to queue in the service.
 */
const CHUNKS = 8000;
const ANSWER = Array.from({ length: CHUNKS }, (_, i) => String(i).padStart(6, '0') + 'x'.repeat(CHUNK_CHARS - 6)).join('');
const FIRST = 'Looking.';

/** A reader that stops reading is dropped instead of its backlog growing, and resumes losing nothing. */
describe('slow SSE readers', () => {
	let ollama: ScriptedOllama;
	let service: Service;

	beforeAll(async () => {
		// Step 1 holds before its first token, so the reader attaches before anything is live; the
		// answer (step 2) holds before its last chunk, so the run is still live when the reader comes back.
		ollama = await ScriptedOllama.start((request) =>
			currentTurn(request).after.length === 0
				? { content: FIRST, hold: 'attach', holdAfterChunks: 0, toolCalls: [{ name: 'memory__read_graph', arguments: {} }] }
				: { content: ANSWER, chunkChars: CHUNK_CHARS, hold: 'tail', holdAfterChunks: CHUNKS - 1 }
		);
		service = await Service.start({
			ollamaUrl: ollama.url,
			// The answer is longer than MAX_ANSWER_CHARS lets one step keep by default.
			env: { SSE_READER_BACKLOG_BYTES: '16384', SSE_BUFFER_EVENTS: '100', MAX_ANSWER_CHARS: '10000000' }
		});
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('is cut off past SSE_READER_BACKLOG_BYTES and, back with Last-Event-ID, gets exactly the rest', async () => {
		const { conversation, run } = await (await service.post('/api/chat', { message: 'a long answer, please' })).json();
		await ollama.held('attach');
		const url = `${service.url}/api/chat?conversation=${conversation}`;
		// A real HTTP client that reads the headers and then nothing more.
		const stalled = await fetch(url);
		ollama.release('attach');
		await service.waitForOutput(new RegExp(`Run ${run}: dropped a slow SSE reader`));

		// What had reached it before the cut: whole frames, no terminal event, then a broken stream.
		const seen: SseEvent[] = [];
		const cut = await (async () => {
			try {
				for await (const e of sseMessages(stalled)) seen.push(e);
				return false;
			} catch {
				return true;
			}
		})();
		expect(cut).toBe(true);
		expect(seen.map((e) => e.event)).not.toContain('end');
		const lastId = Number(seen.at(-1)!.id);

		const again = await fetch(url, { headers: { 'Last-Event-ID': String(lastId) } });
		// Read at once, as a client does: left unread, the replay of what it missed can pass the backlog
		// bound too, and on a loaded machine did, cutting this reader off as well.
		const reading = readEvents(again);
		// The dropped reader is counted, and it no longer follows: the one back with Last-Event-ID does.
		const figures = async () => {
			const text = await (await service.fetch('/api/metrics')).text();
			return { ...samples(text, 'sophos_sse_streams'), ...samples(text, 'sophos_sse_readers_dropped_total') };
		};
		expect(await figures()).toEqual({ sophos_sse_streams: 1, sophos_sse_readers_dropped_total: 1 });
		ollama.release('tail');
		const rest = await reading;
		expect(Number(rest[0]!.id)).toBeGreaterThan(lastId);
		expect(tokensOf(seen) + tokensOf(rest)).toBe(FIRST + ANSWER);
		expect(rest.at(-1)).toMatchObject({ event: 'end', data: { conversation, run, status: 'completed' } });
		expect(service.output.match(/dropped a slow SSE reader/g)).toHaveLength(1);
		expect(await figures()).toEqual({ sophos_sse_streams: 0, sophos_sse_readers_dropped_total: 1 });
	});
});
