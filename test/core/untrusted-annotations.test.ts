import { describe, expect, it } from 'vitest';
import type { Runtime } from '../../src/lib/server/runtime';
import { inProcessTests } from '../support/in-process';
import { callsScript } from '../support/scripts';
import { eventsOfRun, startedRun } from '../support/run-events';

// Issue 21, item 4: a server whose annotations lie (`readOnlyHint: true` on a tool that writes) had
// its calls run unasked. Annotations are hints; they count only from servers mcp.json marks trusted.
// The test server's `peek` says readOnlyHint: true.
async function send(runtime: Runtime, message: string) {
	const started = startedRun(await runtime.runService.start({ kind: 'message', conversation: null, message }));
	return { ...started, events: await eventsOfRun(runtime, started.run) };
}

describe('annotations of a server that is not trusted', () => {
	const { model, start } = inProcessTests();

	it.each([
		[false, 'asks before its "read-only" tool, as before any write', { event: 'end', data: { status: 'waiting' } }, 0],
		[true, 'runs the read-only tool of a trusted server at once', { event: 'end', data: { status: 'completed' } }, 1]
	])('trusted: %s %s', async (trusted, _name, end, made) => {
		const ollama = await model(callsScript([{ name: 'test__peek', arguments: {} }]));
		const { runtime, calls } = await start({ ollamaUrl: ollama.url, server: { trusted } });
		const run = await send(runtime, 'peek');
		expect(run.events.at(-1)).toMatchObject(end);
		if (!trusted) {
			expect(run.events.find((e) => e.event === 'approval')).toMatchObject({
				data: { approvals: [{ tool: 'test__peek', reason: { kind: 'policy' } }] }
			});
		}
		expect(calls()).toHaveLength(made);
	});
});
