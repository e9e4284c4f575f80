import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carries it, with what the tests read of it. */
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

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would be: it decodes http/json exports
 * into spans, keeps every request's raw body (for a test that no secret went out) and answers 200.
 * Protobuf exports are kept raw and counted. Tests wait on `until`, never on time.
 */
export class OtlpReceiver {
	readonly spans: ReceivedSpan[] = [];
	readonly bodies: { contentType: string; body: Buffer; headers: http.IncomingHttpHeaders }[] = [];
	private waiters: { check: () => boolean; resolve: () => void }[] = [];

	private constructor(private readonly server: http.Server) {}

	static async start(): Promise<OtlpReceiver> {
		const server = http.createServer();
		const receiver = new OtlpReceiver(server);
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
		req.on('data', (c: Buffer) => chunks.push(c));
		req.on('end', () => {
			const body = Buffer.concat(chunks);
			const contentType = req.headers['content-type'] ?? '';
			this.bodies.push({ contentType, body, headers: req.headers });
			if (req.url === '/v1/traces' && contentType.startsWith('application/json')) this.decode(JSON.parse(body.toString()));
			res.writeHead(200, { 'Content-Type': contentType.startsWith('application/json') ? 'application/json' : 'application/x-protobuf' });
			res.end(contentType.startsWith('application/json') ? '{}' : '');
			this.waiters = this.waiters.filter((w) => (w.check() ? (w.resolve(), false) : true));
		});
	}

	private decode(request: { resourceSpans?: { resource?: { attributes?: KeyValue[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }): void {
		for (const rs of request.resourceSpans ?? []) {
			const resource = attributesOf(rs.resource?.attributes);
			for (const ss of rs.scopeSpans ?? []) {
				for (const s of ss.spans ?? []) {
					this.spans.push({
						traceId: String(s.traceId),
						spanId: String(s.spanId),
						...(s.parentSpanId ? { parentSpanId: String(s.parentSpanId) } : {}),
						name: String(s.name),
						kind: Number(s.kind),
						attributes: attributesOf(s.attributes as KeyValue[]),
						links: ((s.links as { traceId: string; spanId: string }[] | undefined) ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
						status: s.status as { code?: number },
						resource
					});
				}
			}
		}
	}
}
