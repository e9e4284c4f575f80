import http from 'node:http';
import type { AddressInfo } from 'node:net';

export const EXAMPLE_HTML = `<!doctype html><html><head><title>Example Domain</title></head><body><div>
<h1>Example Domain</h1><p>This domain is for use in illustrative examples in documents. You may use this
domain in literature without prior coordination or asking for permission.</p>
<p><a href="https://www.iana.org/domains/example">More information...</a></p></div></body></html>`;

/** A web page on loopback that counts the requests it gets. */
export class PageServer {
	readonly requests: string[] = [];
	private constructor(private readonly server: http.Server) {}

	static async start(pages: Record<string, string> = { '/': EXAMPLE_HTML }): Promise<PageServer> {
		let instance!: PageServer;
		const server = http.createServer((req, res) => {
			instance.requests.push(req.url ?? '');
			const page = pages[req.url ?? ''];
			if (page === undefined) {
				res.writeHead(404).end('not found');
				return;
			}
			res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(page);
		});
		instance = new PageServer(server);
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		return instance;
	}

	get host(): string {
		return `127.0.0.1:${(this.server.address() as AddressInfo).port}`;
	}

	url(pathname = '/'): string {
		return `http://${this.host}${pathname}`;
	}

	pageRequests(pathname = '/'): number {
		return this.requests.filter((r) => r === pathname).length;
	}

	async close(): Promise<void> {
		this.server.closeAllConnections();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}
