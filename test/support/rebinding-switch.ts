import net from 'node:net';

/**
 * DNS rebinding, with the browser mapping the attacker's name to 127.0.0.1 (--host-resolver-rules):
 * the name first reaches the attacker's server, which sends its page; from then on the same origin
 * reaches the victim. Here the first connection gets `page`, every later one is forwarded byte for
 * byte to `targetPort`, Host header and all, as a re-pointed name would arrive.
 */
export class RebindingSwitch {
	private served = false;
	private readonly sockets = new Set<net.Socket>();

	private constructor(
		private readonly server: net.Server,
		readonly port: number
	) {}

	static async start(page: string, targetPort: number): Promise<RebindingSwitch> {
		let instance!: RebindingSwitch;
		const server = net.createServer((socket) => {
			instance.sockets.add(socket);
			socket.on('close', () => instance.sockets.delete(socket));
			if (!instance.served) {
				instance.served = true;
				socket.once('data', () => {
					const body = Buffer.from(page);
					socket.end(
						`HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${page}`
					);
				});
				return;
			}
			const upstream = net.connect(targetPort, '127.0.0.1');
			instance.sockets.add(upstream);
			upstream.on('close', () => instance.sockets.delete(upstream));
			socket.pipe(upstream).pipe(socket);
			const drop = () => {
				socket.destroy();
				upstream.destroy();
			};
			socket.on('error', drop);
			upstream.on('error', drop);
		});
		await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
		instance = new RebindingSwitch(server, (server.address() as net.AddressInfo).port);
		return instance;
	}

	async close(): Promise<void> {
		for (const s of this.sockets) s.destroy();
		await new Promise<void>((resolve) => this.server.close(() => resolve()));
	}
}
