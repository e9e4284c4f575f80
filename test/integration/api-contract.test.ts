import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
	CancelResultSchema,
	ConversationDetailSchema,
	ConversationPageSchema,
	ConversationSummarySchema,
	EVENT_DATA,
	ModelListSchema,
	ReadinessSchema,
	RunRecordSchema,
	StartResultSchema,
	STREAM_EVENT_NAMES
} from '../../src/lib/protocol';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { Service } from '../support/service';
import { followRun } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/** Strict: a field the server sends that the protocol does not name is drift too. */
function expectShape(schema: z.ZodType, body: unknown): void {
	const parsed = schema.safeParse(body);
	expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
	expect(parsed.data).toEqual(body);
}

describe('the service speaks the protocol module', () => {
	let ollama: ScriptedOllama;
	let service: Service;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }], { thinking: 'Done looking.' }));
		service = await Service.start({ ollamaUrl: ollama.url, configDir: testMcpConfig().configDir, env: { OLLAMA_THINK: 'true' } });
	});
	afterAll(async () => {
		await service.stop();
		await ollama.close();
	});

	it('every body and every stream event of a run with a tool call parses with its schema, unchanged', async () => {
		const started = await (await service.post('/api/chat', { message: 'look' })).json();
		expectShape(StartResultSchema, started);
		const events = await followRun(service.url, started.conversation);
		expect(new Set(events.map((e) => e.event))).toEqual(new Set(['trace', 'reasoning', 'token', 'end']));
		for (const e of events) {
			expect(STREAM_EVENT_NAMES).toContain(e.event);
			expectShape(EVENT_DATA[e.event as keyof typeof EVENT_DATA], e.data);
		}

		expectShape(ConversationDetailSchema, await (await service.fetch(`/api/conversations/${started.conversation}`)).json());
		const list = await (await service.fetch('/api/conversations')).json();
		for (const summary of list.conversations) expectShape(ConversationSummarySchema, summary);
		expectShape(ConversationPageSchema, await (await service.fetch('/api/conversations?limit=5')).json());
		const { runs } = await (await service.fetch(`/api/conversations/${started.conversation}/runs`)).json();
		for (const record of runs) expectShape(RunRecordSchema, record);
		expectShape(CancelResultSchema, await (await service.post(`/api/runs/${started.run}/cancel`, {})).json());
		expectShape(ReadinessSchema, await (await service.fetch('/api/readyz')).json());
		expectShape(ModelListSchema, await (await service.fetch('/api/models')).json());
	});

	it('the single-event answers for no live run parse too', async () => {
		const bad = await (await service.fetch('/api/chat?conversation=nope')).text();
		const data = JSON.parse(/^data: (.*)$/m.exec(bad)![1]!);
		expectShape(EVENT_DATA['chat-error'], data);
	});
});
