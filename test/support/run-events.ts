import { expect } from 'vitest';
import { parseStreamEvent, type StreamEvent } from '../../src/lib/protocol';
import type { StartOutcome } from '../../src/lib/server/runs/run-service';
import type { Runtime } from '../../src/lib/server/runtime';

/** In-process helpers over a run's event log. */

/** Every frame the run's log held, parsed with the browser's parser: what a page would see. */
export async function eventsOfRun(runtime: Runtime, runId: string): Promise<StreamEvent[]> {
	const run = runtime.runService.registry.getById(runId)!;
	const live: string[] = [];
	const { missed } = run.log.follow(0, (frame) => live.push(frame));
	await run.done;
	return [...missed, ...live].map((frame) => {
		const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(frame)?.[1] ?? '';
		const event = parseStreamEvent(field('event'), field('data'), field('id'));
		expect(event, frame).not.toBeNull();
		return event!;
	});
}

/** Resolves once the run's log holds `count` tokens: the model's chunks have reached the run. */
export function tokensPublished(runtime: Runtime, runId: string, count: number): Promise<void> {
	const log = runtime.runService.registry.getById(runId)!.log;
	let seen = 0;
	return new Promise((resolve) => {
		const { missed, detach } = log.follow(0, (_frame, event) => {
			if (event.event === 'token' && ++seen === count) {
				detach();
				resolve();
			}
		});
		seen = missed.filter((frame) => frame.includes('event: token')).length;
		if (seen >= count) {
			detach();
			resolve();
		}
	});
}

export const startedRun = (result: StartOutcome) => {
	if ('refused' in result) throw new Error(`expected a run, got the refusal ${JSON.stringify(result)}`);
	if (!('run' in result)) throw new Error('expected a run, got a queued message');
	return result;
};

/** A message sent in process: its run and conversation, the run's events to its end, once the run is done here (outcome recorded). */
export async function sentMessage(runtime: Runtime, message: string, conversation: string | null = null) {
	const started = startedRun(await runtime.runService.start({ kind: 'message', conversation, message }));
	const events = await eventsOfRun(runtime, started.run);
	await runtime.runService.registry.get(started.conversation)?.done;
	return { ...started, events };
}
