import type { CheckpointSummary } from '../runs/thread-reader';

/** One JSON line per checkpoint, oldest first; a thread with none is a single blank line. */
export async function* checkpointJsonl(history: AsyncIterable<CheckpointSummary>): AsyncGenerator<string> {
	let any = false;
	for await (const checkpoint of history) {
		any = true;
		yield `${JSON.stringify(checkpoint)}\n`;
	}
	if (!any) yield '\n';
}
