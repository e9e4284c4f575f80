import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** One span as an OTLP/HTTP export carries it (either encoding), with what the tests read of it. */
export type ReceivedSpan = {
	traceId: string;
	spanId: string;
	parentSpanId?: string;
	name: string;
	kind: number;
	attributes: Record<string, unknown>;
	links: { traceId: string; spanId: string }[];
	status?: { code?: number };
	/** service.* of the resource it came with. */
	resource: Record<string, unknown>;
};

type AnyValue = { stringValue?: string; intValue?: string | number; doubleValue?: number; boolValue?: boolean; arrayValue?: { values?: AnyValue[] } };
type KeyValue = { key: string; value: AnyValue };

function valueOf(v: AnyValue): unknown {
	if (v.stringValue !== undefined) return v.stringValue;
	if (v.intValue !== undefined) return Number(v.intValue);
	if (v.doubleValue !== undefined) return v.doubleValue;
	if (v.boolValue !== undefined) return v.boolValue;
	if (v.arrayValue) return (v.arrayValue.values ?? []).map(valueOf);
	return undefined;
}

const attributesOf = (list: KeyValue[] | undefined) => Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));

type ExportRequest = { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] };

const exportRequest = protobuf
	.parse(fs.readFileSync(new URL('./otlp-trace.proto', import.meta.url), 'utf8'))
	.root.lookupType('sophos.test.otlp.ExportTraceServiceRequest');

/**
 * An http/protobuf export as the http/json encoding writes it: the same field names in camelCase,
 * 64-bit integers as strings, ids in hex where JSON has them in hex and protobuf as raw bytes.
 */
function fromProtobuf(body: Buffer): { request: ExportRequest; id: (v: unknown) => string } {
	const request = exportRequest.toObject(exportRequest.decode(body), { longs: String, bytes: String }) as ExportRequest;
	return { request, id: (v) => Buffer.from(String(v), 'base64').toString('hex') };
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would be: it decodes http/protobuf and
 * http/json exports into spans, keeps every request's raw body (for a test that no secret went out)
 * and answers 200. Tests wait on `until`, never on time.
 */
export class OtlpReceiver {
	readonly spans: ReceivedSpan[] = [];
	readonly bodies: { contentType: string; body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
	/** Export requests received and not closed: by a collector that never answers, held open for as long as the exporter waits. */
	open = 0;
	private waiters: { check: () => boolean; resolve: () => void }[] = [];

	private constructor(
		private readonly server: http.Server,
		private readonly answers: boolean
	) {}

	/** `answers: false`: a collector that takes each export and never answers it, as a hung one does. */
	static async start(options: { answers?: boolean } = {}): Promise<OtlpReceiver> {
		const server = http.createServer();
		const receiver = new OtlpReceiver(server, options.answers ?? true);
		server.on('request', (req, res) => receiver.receive(req, res));
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		return receiver;
	}

	get url(): string {
		return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	/** Resolves once `check` holds of what was received. */
	until(check: () => boolean): Promise<void> {
		if (check()) return Promise.resolve();
		return new Promise((resolve) => this.waiters.push({ check, resolve }));
	}

	close(): Promise<void> {
		this.server.closeAllConnections();
		return new Promise((resolve) => this.server.close(() => resolve()));
	}

	private receive(req: http.IncomingMessage, res: http.ServerResponse): void {
		const chunks: Buffer[] = [];
		this.open += 1;
		res.on('close', () => (this.open -= 1));
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			const contentType = req.headers['content-type'] ?? '';
			this.bodies.push({ contentType, body, headers: req.headers });
			if (req.url === '/v1/traces') {
				const { request, id } = contentType.startsWith('application/json') ? { request: JSON.parse(body.toString()), id: String } : fromProtobuf(body);
				this.decode(request, id);
			}
			this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
			if (!this.answers) return;
			res.writeHead(200, { 'Content-Type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
			res.end(contentType.startsWith('application/json') ? '{}' : '');
		});
	}

	private decode(request: ExportRequest, id: (v: unknown) => string): void {
		for (const rs of request.resourceSpans ?? []) {
			const resource = attributesOf(rs.resource?.attributes);
			for (const ss of rs.scopeSpans ?? []) {
				for (const s of ss.spans ?? []) {
					this.spans.push({
						traceId: id(s.traceId),
						spanId: id(s.spanId),
						...(s.parentSpanId ? { parentSpanId: id(s.parentSpanId) } : {}),
						name: String(s.name),
						kind: Number(s.kind),
						attributes: attributesOf(s.attributes as KeyValue[]),
						links: ((s.links as { traceId: unknown; spanId: unknown }[] | undefined) ?? []).map((l) => ({ traceId: id(l.traceId), spanId: id(l.spanId) })),
						status: s.status as { code?: number },
						resource
					});
				}
			}
		}
	}
}
