/**
 * Cuts off slow and greedy clients (issue 21: 200 connections sending a header byte now and then,
 * or 100 bodies trickling in, were held for 300 s). Every connection the process accepts is seen
 * here, through Node's `net.server.socket` diagnostics channel, since adapter-node creates and
 * starts the HTTP server itself and exposes neither its `connection` event nor its constructor
 * options; Node's own headersTimeout and requestTimeout are only checked every
 * connectionsCheckingInterval (30 s), which is set when the server is created. So the deadlines are
 * timers of our own on each socket:
 *
 * - from accept, and again after each answer (the next request of a kept-alive connection), the
 *   request's headers must have arrived within `headersTimeoutMs`;
 * - from the headers, its body must have arrived within `bodyTimeoutMs`. The answer itself has no
 *   deadline: a run's SSE stream lasts as long as the run.
 *
 * A client (loopback, 127.0.0.0/8 and ::1, counts as one, as in the token throttle) holding
 * `maxPerClient` connections has any further one closed at once. Missed deadlines destroy the socket.
 * Only for the process's HTTP server: the tool host has its own.
 */
import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { throttledClient } from './auth-throttle';

export type ConnectionLimits = { headersTimeoutMs: number; bodyTimeoutMs: number; maxPerClient: number };

type SocketMessage = { socket: Socket };
type RequestMessage = { request: IncomingMessage; response: ServerResponse; socket: Socket };

export class ConnectionGuard {
	private readonly perClient = new Map<string, number>();
	private readonly deadlines = new WeakMap<Socket, NodeJS.Timeout>();
	private readonly onSocket = (message: unknown) => this.accepted((message as SocketMessage).socket);
	private readonly onRequest = (message: unknown) => this.requested(message as RequestMessage);
	private started = false;

	constructor(private readonly limits: ConnectionLimits) {}

	/** Watches every connection accepted from now on; a second start throws. */
	start(): void {
		if (this.started) throw new Error('ConnectionGuard already started');
		this.started = true;
		diagnostics.subscribe('net.server.socket', this.onSocket);
		diagnostics.subscribe('http.server.request.start', this.onRequest);
	}

	close(): void {
		diagnostics.unsubscribe('net.server.socket', this.onSocket);
		diagnostics.unsubscribe('http.server.request.start', this.onRequest);
	}

	private accepted(socket: Socket): void {
		const client = throttledClient(socket.remoteAddress ?? '');
		const held = this.perClient.get(client) ?? 0;
		if (held >= this.limits.maxPerClient) {
			socket.destroy();
			return;
		}
		this.perClient.set(client, held + 1);
		socket.once('close', () => {
			this.clearDeadline(socket);
			const left = (this.perClient.get(client) ?? 1) - 1;
			if (left > 0) this.perClient.set(client, left);
			else this.perClient.delete(client);
		});
		this.setDeadline(socket, this.limits.headersTimeoutMs);
	}

	private requested({ request, response, socket }: RequestMessage): void {
		// 'end' comes only once a body is read, and a request without one may never be read.
		const hasBody = request.headers['transfer-encoding'] !== undefined || Number(request.headers['content-length'] ?? 0) > 0;
		if (!hasBody || request.complete) this.clearDeadline(socket);
		else {
			this.setDeadline(socket, this.limits.bodyTimeoutMs);
			request.once('end', () => this.clearDeadline(socket));
		}
		response.once('finish', () => {
			if (!socket.destroyed) this.setDeadline(socket, this.limits.headersTimeoutMs);
		});
	}

	private setDeadline(socket: Socket, ms: number): void {
		this.clearDeadline(socket);
		const timer = setTimeout(() => socket.destroy(), ms);
		timer.unref();
		this.deadlines.set(socket, timer);
	}

	private clearDeadline(socket: Socket): void {
		clearTimeout(this.deadlines.get(socket));
		this.deadlines.delete(socket);
	}
}
