import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Holds, type Script } from './model-script';

/**
 * What both scripted model servers share: an HTTP server on a loopback port, the script that
 * decides each reply (a test may swap it), and the holds a reply stops at.
 */
export abstract class ScriptedHttpServer {
	protected readonly holds = new Holds();
	private readonly server: http.Server;
	/**
	 * Holds the next chat request at this name before anything answers it (its key and model
	 * checks included), so a test can follow the run before its call fails.
	 */
	holdNext: string | undefined;

	protected constructor(public script: Script) {
		this.server = http.createServer((req, res) => void this.handle(req, res));
	}

	protected abstract handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void>;

	protected listen(): Promise<void> {
		return new Promise((resolve) => this.server.listen(0, '127.0.0.1', resolve));
	}

	protected get origin(): string {
		const { port } = this.server.address() as AddressInfo;
		return `http://127.0.0.1:${port}`;
	}

	/** Called by a server as a chat request arrives: waits there if `holdNext` was set. */
	protected async holdIfAsked(): Promise<void> {
		const hold = this.holdNext;
		if (hold === undefined) return;
		this.holdNext = undefined;
		await this.holds.reach(hold);
	}

	/** Resolves when a reply with this hold has streamed up to it. */
	held(name: string): Promise<void> {
		return this.holds.held(name);
	}

	release(name: string): void {
		this.holds.release(name);
	}

	async close(): Promise<void> {
		this.holds.releaseAll();
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}

	protected static async body(req: http.IncomingMessage): Promise<string> {
		const chunks: Buffer[] = [];
		for await (const c of req) chunks.push(c as Buffer);
		return Buffer.concat(chunks).toString('utf8');
	}
}
