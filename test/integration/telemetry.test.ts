import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { OtlpReceiver, type ReceivedSpan } from '../support/otlp-receiver';
import { Prometheus, promtoolCheck, samples } from '../support/prometheus';
import { ScriptedOllama } from '../support/scripted-ollama';
import { callsScript } from '../support/scripts';
import { freePort, Service, tempDir } from '../support/service';
import { attemptIds } from '../../src/lib/server/telemetry/run-ids';
import { followRun, readEvents } from '../support/sse';
import { testMcpConfig } from '../support/test-config';

/** Issue 23: metrics a real Prometheus scrapes, and GenAI traces an OTLP receiver decodes. */

const TOKEN = 'b2JzZXJ2ZS10ZXN0LXRva2VuLTEyMzQ1Njc4';
const API_KEY = 'sk-observe-secret-key-0123456789';
const COLLECTOR_KEY = 'collector-secret-9876543210';
const CONTENT = 'please peek at the quiet place';

const named = (spans: ReceivedSpan[], name: string) => spans.filter((s) => s.name === name);

describe('telemetry', () => {
	let ollama: ScriptedOllama | undefined;
	let service: Service | undefined;
	let receiver: OtlpReceiver | undefined;
	let prometheus: Prometheus | undefined;
	afterEach(async () => {
		await prometheus?.stop();
		await service?.stop();
		await ollama?.close();
		await receiver?.close();
		prometheus = service = ollama = receiver = undefined;
	});

	it('a tool-calling run is one invoke_agent span holding its chat and execute_tool spans, over http/protobuf (the default); its MCP call carries the traceparent; no content or secret is exported; a failed model call marks its span and its JSON log line names the span; every line written is one JSON object, an MCP server\'s stderr wrapped and redacted', async () => {
		receiver = await OtlpReceiver.start();
		const config = testMcpConfig({ approval: 'auto', stderr: `test server starting\nconnecting with key ${API_KEY} now` });
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));
		service = await Service.start({
			ollamaUrl: ollama.url,
			configDir: config.configDir,
			env: {
				OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
				OTEL_EXPORTER_OTLP_HEADERS: `authorization=Bearer%20${COLLECTOR_KEY}`,
				OTEL_BSP_SCHEDULE_DELAY: '50',
				OPENAI_API_KEY: API_KEY,
				LOG_FORMAT: 'json'
			}
		});
		const { conversation, run } = await (await service.post('/api/chat', { message: CONTENT })).json();
		expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
		await receiver.until(() => named(receiver!.spans, 'invoke_agent sophos').length === 1);

		const spans = receiver.spans;
		const [agent] = named(spans, 'invoke_agent sophos');
		expect(agent!.parentSpanId).toBeUndefined();
		expect(agent!.attributes).toMatchObject({
			'gen_ai.operation.name': 'invoke_agent',
			'gen_ai.agent.name': 'sophos',
			'gen_ai.provider.name': 'ollama',
			'gen_ai.conversation.id': conversation,
			'sophos.run.id': run,
			'sophos.run.trigger': 'message',
			'sophos.run.status': 'completed'
		});
		expect(agent!.resource['service.name']).toBe('sophos');
		const chats = named(spans, 'chat qwen3');
		const [tool] = named(spans, 'execute_tool test__peek');
		expect(chats).toHaveLength(2);
		for (const child of [...chats, tool!]) {
			expect(child.traceId).toBe(agent!.traceId);
			expect(child.parentSpanId).toBe(agent!.spanId);
		}
		expect(chats[0]!.kind).toBe(3); // CLIENT
		expect(chats[0]!.attributes).toMatchObject({
			'gen_ai.operation.name': 'chat',
			'gen_ai.request.model': 'qwen3',
			'server.address': '127.0.0.1',
			'server.port': Number(new URL(ollama.url).port)
		});
		expect(tool!.attributes).toMatchObject({
			'gen_ai.tool.name': 'test__peek',
			'mcp.method.name': 'tools/call',
			'network.transport': 'pipe',
			'sophos.tool.outcome': 'success'
		});
		expect(String(tool!.attributes['gen_ai.tool.call.id'])).not.toBe('');

		// The MCP server got the tool span's context in params._meta, beside the idempotency key.
		const peek = config.calls().find((l) => l.startsWith('peek '));
		expect(peek).toContain(`traceparent=00-${agent!.traceId}-${tool!.spanId}-01`);

		expect(receiver.bodies.map((b) => b.contentType)).toEqual(receiver.bodies.map(() => 'application/x-protobuf'));
		// Protobuf keeps strings as their UTF-8 bytes, so a text search of the bodies finds any.
		const exported = receiver.bodies.map((b) => b.body.toString()).join('\n');
		for (const secret of [CONTENT, 'all quiet', 'Finished.', API_KEY, COLLECTOR_KEY]) expect(exported).not.toContain(secret);
		for (const span of spans) {
			for (const content of ['gen_ai.input.messages', 'gen_ai.output.messages', 'gen_ai.tool.call.arguments', 'gen_ai.tool.call.result']) {
				expect(span.attributes).not.toHaveProperty(content);
			}
		}
		expect(receiver.bodies[0]!.headers.authorization).toBe(`Bearer ${COLLECTOR_KEY}`);

		// A run whose model call fails: its chat span has the error's type, and the line the service
		// logs of it (LOG_FORMAT=json) names the run, the conversation and the attempt's span.
		ollama.script = () => ({ httpError: { status: 400, error: 'the model refuses' } });
		const failed = (await (await service.post('/api/chat', { conversation, message: 'and now fail' })).json()).run;
		const ended = (await followRun(service.url, conversation)).at(-1)!;
		expect(ended.event).toBe('chat-error');
		const code = (ended.data as { code: string }).code;
		await receiver.until(() => receiver!.spans.some((s) => s.attributes['sophos.run.id'] === failed));
		const failedAgent = receiver.spans.find((s) => s.attributes['sophos.run.id'] === failed)!;
		const failedChat = receiver.spans.find((s) => s.name === 'chat qwen3' && s.parentSpanId === failedAgent.spanId)!;
		expect(failedChat.attributes['error.type']).toBe(code);
		expect(failedChat.status?.code).toBe(2); // ERROR
		expect(failedAgent.attributes).toMatchObject({ 'sophos.run.status': 'failed', 'error.type': code });
		await service.waitForOutput(new RegExp(`"message":"Run ${failed} failed"`));
		// Every line on stdout and stderr: Sophos's own, the HTTP server's `Listening on`, what the MCP children wrote.
		const lines = service.output.split('\n').filter((l) => l !== '');
		const records = lines.map((l) => {
			try {
				return JSON.parse(l) as Record<string, unknown>;
			} catch {
				throw new Error(`not a JSON line: ${l}`);
			}
		});
		expect(records.some((r) => String(r.message).startsWith('MCP: connected to "test"'))).toBe(true);
		expect(records.find((r) => String(r.message).startsWith('Listening on'))).toMatchObject({ level: 'info', message: expect.stringContaining(`:${service.port}`) });
		expect(records.filter((r) => r.server === 'test')).toEqual([
			expect.objectContaining({ level: 'info', message: 'test server starting', server: 'test' }),
			expect.objectContaining({ level: 'info', message: 'connecting with key [redacted] now', server: 'test' })
		]);
		expect(records.every((r) => typeof r.time === 'string' && typeof r.level === 'string' && typeof r.instance === 'string')).toBe(true);
		expect(records.find((r) => r.message === `Run ${failed} failed`)).toMatchObject({
			level: 'error',
			run: failed,
			conversation,
			trace_id: failedAgent.traceId,
			span_id: failedAgent.spanId
		});
		for (const secret of [API_KEY, COLLECTOR_KEY]) expect(service.output).not.toContain(secret);
	});

	it('the resume after a SIGKILL is a new invoke_agent span linked to the attempt the kill cut short, over http/json; the run is counted once, its resumed step and its tokens not again; content is exported when asked for', async () => {
		receiver = await OtlpReceiver.start();
		const config = testMcpConfig();
		ollama = await ScriptedOllama.start(callsScript([{ name: 'test__peek', arguments: {} }]));
		const env = {
			OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
			OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
			OTEL_BSP_SCHEDULE_DELAY: '50',
			OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true',
			OTEL_SERVICE_NAME: 'sophos-resumed',
			OPENAI_API_KEY: API_KEY
		};
		const crashing = await Service.start({ ollamaUrl: ollama.url, configDir: config.configDir, dataDir: tempDir(), env: { ...env, SOPHOS_CRASH_AT: 'before-tool-call' } });
		const { conversation, run: first } = await (await crashing.post('/api/chat', { message: 'peek' })).json();
		await crashing.crashed();
		expect(crashing.child.signalCode).toBe('SIGKILL');
		service = await crashing.restart({ SOPHOS_CRASH_AT: '' });
		const { run: resumed } = await (await service.post('/api/chat', { conversation, resume: true })).json();
		expect((await followRun(service.url, conversation)).at(-1)?.event).toBe('end');
		await receiver.until(() => receiver!.spans.some((s) => s.attributes['sophos.run.id'] === resumed));

		const attempt = receiver.spans.find((s) => s.attributes['sophos.run.id'] === resumed)!;
		expect(attempt.attributes).toMatchObject({ 'sophos.run.trigger': 'resume', 'sophos.run.status': 'completed' });
		expect(attempt.links).toEqual([attemptIds(first)]);
		expect(attempt.resource['service.name']).toBe('sophos-resumed');
		// The killed attempt's span never ended, so it was never exported: only the link names it.
		expect(receiver.spans.some((s) => s.attributes['sophos.run.id'] === first)).toBe(false);

		// Content capture on: the answer and the tool's arguments and result are on the spans, a secret still is not.
		// The resume's own spans: the killed process may have sent its first chat span before the kill.
		const under = (name: string) => named(receiver!.spans, name).filter((s) => s.parentSpanId === attempt.spanId);
		await receiver.until(() => under('chat qwen3').length === 1 && under('execute_tool test__peek').length === 1);
		const [chat] = under('chat qwen3');
		const [tool] = under('execute_tool test__peek');
		expect(JSON.parse(String(chat!.attributes['gen_ai.output.messages']))).toEqual([{ role: 'assistant', parts: [{ type: 'text', content: 'Finished.' }] }]);
		// What that call sent: the system prompt, the question, the tool call the killed attempt recorded, its result.
		const sent = JSON.parse(String(chat!.attributes['gen_ai.input.messages'])) as { role: string; parts: Record<string, unknown>[] }[];
		expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
		expect(sent[0]!.parts).toEqual([{ type: 'text', content: expect.any(String) }]);
		expect(sent[1]!.parts).toEqual([{ type: 'text', content: 'peek' }]);
		expect(sent[2]!.parts).toContainEqual({ type: 'tool_call', id: tool!.attributes['gen_ai.tool.call.id'], name: 'test__peek', arguments: {} });
		expect(sent[3]!.parts).toEqual([
			{ type: 'tool_call_response', id: tool!.attributes['gen_ai.tool.call.id'], response: expect.stringContaining('all quiet') }
		]);
		expect(tool!.attributes['gen_ai.tool.call.arguments']).toBe('{}');
		expect(String(tool!.attributes['gen_ai.tool.call.result'])).toContain('all quiet');
		expect(receiver.bodies.map((b) => b.body.toString()).join('\n')).not.toContain(API_KEY);

		// One run with two attempts: the killed one recorded interrupted by the recovery at start,
		// the resume completed. The step the kill cut short had its model answer recorded before the
		// kill, so the restarted process asked the model once (for the final answer) and ran the tool once.
		const metrics = await (await service.fetch('/api/metrics')).text();
		expect(samples(metrics, 'sophos_runs_total')).toEqual({
			'sophos_runs_total{status="interrupted",trigger="message"}': 1,
			'sophos_runs_total{status="completed",trigger="resume"}': 1
		});
		expect(samples(metrics, 'sophos_model_requests_total')).toEqual({ 'sophos_model_requests_total{provider="ollama",model="qwen3",outcome="success"}': 1 });
		// Its tokens are that one call's, as the resume recorded them, not the killed attempt's again.
		const [{ usage }] = (await (await service.fetch(`/api/conversations/${conversation}/runs`)).json()).runs;
		expect(usage.calls).toBe(1);
		expect(samples(metrics, 'sophos_model_tokens_total')).toEqual({
			'sophos_model_tokens_total{provider="ollama",model="qwen3",direction="input"}': usage.inputTokens,
			'sophos_model_tokens_total{provider="ollama",model="qwen3",direction="output"}': usage.outputTokens
		});
		expect(samples(metrics, 'sophos_tool_calls_total')).toEqual({ 'sophos_tool_calls_total{tool="test__peek",outcome="success"}': 1 });
	});

	it('Prometheus scrapes /api/metrics with the token: the target is up and the run it made is counted once, its tokens the usage it recorded; every family is exposed; promtool accepts the output', async () => {
		ollama = await ScriptedOllama.start(callsScript([]));
		service = await Service.start({ ollamaUrl: ollama.url, env: { SOPHOS_TOKEN: TOKEN } });
		const auth = { Authorization: `Bearer ${TOKEN}` };
		expect((await service.fetch('/api/metrics')).status).toBe(401);

		const started = await service.fetch('/api/chat', {
			method: 'POST',
			headers: { ...auth, 'Content-Type': 'application/json' },
			body: JSON.stringify({ message: 'hello' })
		});
		const { conversation } = await started.json();
		const events = await readEvents(await service.fetch(`/api/chat?conversation=${conversation}`, { headers: auth }));
		expect(events.at(-1)?.event).toBe('end');

		const res = await service.fetch('/api/metrics', { headers: auth });
		expect(res.status).toBe(200);
		expect(res.headers.get('content-type')).toContain('text/plain');
		const text = await res.text();
		expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
		expect(text).toContain('sophos_runs_total{status="completed",trigger="message"} 1');
		expect(text).toContain('sophos_model_requests_total{provider="ollama",model="qwen3",outcome="success"} 1');
		// Every family issue 23 names is exposed; the three of leases only on PostgreSQL.
		const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
		for (const name of [
			'sophos_runs_total', 'sophos_active_runs', 'sophos_waiting_runs', 'sophos_queued_messages', 'sophos_run_duration_seconds',
			'sophos_model_requests_total', 'sophos_model_tokens_total', 'sophos_model_first_token_seconds', 'sophos_model_request_duration_seconds',
			'sophos_tool_calls_total', 'sophos_tool_call_duration_seconds', 'sophos_approvals_total', 'sophos_mcp_server_up',
			'sophos_mcp_server_restarts_total', 'sophos_sse_streams', 'sophos_sse_readers_dropped_total', 'sophos_http_requests_total',
			'sophos_http_request_duration_seconds', 'sophos_event_loop_lag_seconds',
			'process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_active_handles'
		]) {
			expect(families.has(name), name).toBe(true);
		}
		for (const name of ['sophos_runs_taken_over_total', 'sophos_lease_renewals_failed_total', 'sophos_fenced_writes_refused_total']) {
			expect(families.has(name), name).toBe(false);
		}
		// The tokens are the usage the run recorded; the one model call and the run are each in their histograms once.
		const [{ usage }] = (await (await service.fetch(`/api/conversations/${conversation}/runs`, { headers: auth })).json()).runs;
		expect(usage.inputTokens).toBeGreaterThan(0);
		expect(samples(text, 'sophos_model_tokens_total')).toEqual({
			'sophos_model_tokens_total{provider="ollama",model="qwen3",direction="input"}': usage.inputTokens,
			'sophos_model_tokens_total{provider="ollama",model="qwen3",direction="output"}': usage.outputTokens
		});
		expect(samples(text, 'sophos_model_first_token_seconds_count')).toEqual({ 'sophos_model_first_token_seconds_count{provider="ollama",model="qwen3"}': 1 });
		expect(samples(text, 'sophos_model_request_duration_seconds_count')).toEqual({ 'sophos_model_request_duration_seconds_count{provider="ollama",model="qwen3"}': 1 });
		expect(samples(text, 'sophos_run_duration_seconds_count')).toEqual({ 'sophos_run_duration_seconds_count{status="completed"}': 1 });
		expect(text).not.toContain(conversation);
		expect(text).not.toContain(TOKEN);

		prometheus = await Prometheus.start(`127.0.0.1:${service.port}`, TOKEN);
		await prometheus.until('up{job="sophos"}', 1);
		await prometheus.until('sum(sophos_runs_total{status="completed"})', 1);
		const [route] = await prometheus.query('sophos_http_requests_total{route="/api/chat",status="200"}');
		expect(route!.value).toBeGreaterThanOrEqual(2);
	});

	it('a collector that cannot be reached never fails a run', async () => {
		const closed = await freePort();
		ollama = await ScriptedOllama.start(callsScript([]));
		service = await Service.start({
			ollamaUrl: ollama.url,
			env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${closed}/v1/traces`, OTEL_BSP_SCHEDULE_DELAY: '10' }
		});
		for (const message of ['one', 'two']) {
			const { conversation } = await (await service.post('/api/chat', { message })).json();
			expect((await followRun(service.url, conversation)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		}
	});

	it('a collector that takes an export and never answers it holds up no run', async () => {
		receiver = await OtlpReceiver.start({ answers: false });
		ollama = await ScriptedOllama.start(callsScript([]));
		// The exporter waits for the answer up to its timeout, set longer than any test runs.
		service = await Service.start({
			ollamaUrl: ollama.url,
			env: { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_BSP_SCHEDULE_DELAY: '10', OTEL_EXPORTER_OTLP_TIMEOUT: '600000' }
		});
		const first = (await (await service.post('/api/chat', { message: 'one' })).json()).conversation;
		expect((await followRun(service.url, first)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		// The first run's spans reach the collector, which keeps their request open from here on.
		await receiver.until(() => receiver!.spans.some((s) => s.name === 'invoke_agent sophos'));
		const second = (await (await service.post('/api/chat', { message: 'two' })).json()).conversation;
		expect((await followRun(service.url, second)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		// The second run ran its course while the first export still waited for its answer.
		expect(receiver.open).toBeGreaterThanOrEqual(1);
	});

	it('LOG_FORMAT=json: a start refused for a bad setting is one JSON line too, naming the variable', async () => {
		const start = Service.start({ ollamaUrl: 'http://127.0.0.1:9', env: { LOG_FORMAT: 'json', OTEL_TRACES_SAMPLER: 'sometimes' } });
		const refused = await start.then(
			() => new Error('the service started'),
			(e: Error) => e
		);
		const [, ...output] = refused.message.split('\n').filter((l) => l !== '');
		expect(output).toHaveLength(1);
		expect(JSON.parse(output[0]!)).toMatchObject({ level: 'error', message: expect.stringContaining('OTEL_TRACES_SAMPLER="sometimes"') });
	});

	it('LOG_FORMAT=json: a start that fails after the settings are read (the port taken) is one JSON line naming the address, and exits 1', async () => {
		const holder = net.createServer();
		const port = await freePort();
		await new Promise<void>((resolve) => holder.listen(port, '127.0.0.1', resolve));
		try {
			const refused = await Service.start({ ollamaUrl: 'http://127.0.0.1:9', env: { LOG_FORMAT: 'json' } }, port).then(
				() => new Error('the service started'),
				(e: Error) => e
			);
			const [head, ...output] = refused.message.split('\n').filter((l) => l !== '');
			expect(head).toBe('service exited (1) before listening:');
			// Every line the start wrote is one JSON object; the last says why it stopped.
			const lines = output.map((l) => JSON.parse(l) as { level: string; message: string; instance?: string; error?: { code?: string } });
			expect(lines.filter((l) => l.level === 'error')).toEqual([lines.at(-1)]);
			expect(lines.at(-1)).toMatchObject({
				level: 'error',
				message: `Cannot listen on 127.0.0.1:${port} (HOST, PORT): the address is already in use (EADDRINUSE): stop what holds it or set another PORT`,
				instance: expect.any(String),
				error: { code: 'EADDRINUSE' }
			});
		} finally {
			await new Promise((resolve) => holder.close(resolve));
		}
	});

	// Spans wait for the shutdown to be sent (the batch delay is longer than any test), so what the
	// receiver holds once the service has stopped is every span the sampler let through.
	it.each([
		['always_off', undefined, 0],
		['traceidratio', '0', 0],
		['traceidratio', '1', 1]
	])('OTEL_TRACES_SAMPLER=%s (ratio %s): runs work, and %s invoke_agent span per run is exported', async (sampler, ratio, perRun) => {
		receiver = await OtlpReceiver.start();
		ollama = await ScriptedOllama.start(callsScript([]));
		service = await Service.start({
			ollamaUrl: ollama.url,
			env: {
				OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
				OTEL_BSP_SCHEDULE_DELAY: '600000',
				OTEL_TRACES_SAMPLER: sampler,
				...(ratio === undefined ? {} : { OTEL_TRACES_SAMPLER_ARG: ratio })
			}
		});
		for (const message of ['one', 'two']) {
			const { conversation } = await (await service.post('/api/chat', { message })).json();
			expect((await followRun(service.url, conversation)).at(-1)).toMatchObject({ event: 'end', data: { status: 'completed' } });
		}
		expect(await service.stop()).toBe(0);
		expect(named(receiver.spans, 'invoke_agent sophos')).toHaveLength(2 * perRun);
		expect(named(receiver.spans, 'chat qwen3')).toHaveLength(2 * perRun);
		if (perRun === 0) expect(receiver.bodies).toEqual([]);
	});

	it.each([
		['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
		['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
		['OTEL_TRACES_SAMPLER', 'sometimes'],
		['OTEL_TRACES_SAMPLER_ARG', '1.5']
	])('%s=%s stops the start with a message naming it', async (name, value) => {
		const start = Service.start({ ollamaUrl: 'http://127.0.0.1:9', env: { [name]: value } });
		await expect(start).rejects.toThrow(new RegExp(`${name}=`));
	});
});
