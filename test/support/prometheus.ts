import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort, tempDir } from './service';

/** `promtool check metrics` on an exposition: its complaints, empty when it passes. */
export function promtoolCheck(exposition: string): { status: number | null; output: string } {
	const result = spawnSync('promtool', ['check', 'metrics'], { input: exposition, encoding: 'utf8' });
	return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The samples of metric `name` in an exposition, each series (name and labels as written) to its value. */
export function samples(exposition: string, name: string): Record<string, number> {
	const found: Record<string, number> = {};
	for (const line of exposition.split('\n')) {
		const match = /^(\S+?(?:\{.*\})?) (\S+)$/.exec(line);
		if (match && (match[1] === name || match[1]!.startsWith(`${name}{`))) found[match[1]!] = Number(match[2]);
	}
	return found;
}

/**
 * Debian's Prometheus on a loopback port, scraping `target` (host:port) at `/api/metrics` with a
 * bearer token, every 500 ms, its data in a temporary directory.
 */
export class Prometheus {
	private constructor(
		private readonly child: ChildProcess,
		readonly url: string
	) {}

	static async start(target: string, token: string): Promise<Prometheus> {
		const dir = tempDir('sophos-prometheus-');
		const config = [
			'global:',
			'  scrape_interval: 500ms',
			'  scrape_timeout: 400ms',
			'scrape_configs:',
			'  - job_name: sophos',
			'    metrics_path: /api/metrics',
			'    authorization:',
			`      credentials: ${token}`,
			'    static_configs:',
			`      - targets: ['${target}']`
		].join('\n');
		fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
		const port = await freePort();
		const child = spawn(
			'prometheus',
			[`--config.file=${path.join(dir, 'prometheus.yml')}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`],
			{ stdio: ['ignore', 'pipe', 'pipe'] }
		);
		const prometheus = new Prometheus(child, `http://127.0.0.1:${port}`);
		await new Promise<void>((resolve, reject) => {
			let output = '';
			const onData = (chunk: Buffer) => {
				output += chunk.toString();
				if (output.includes('Server is ready to receive web requests')) resolve();
			};
			child.stdout!.on('data', onData);
			child.stderr!.on('data', onData);
			child.once('exit', (code) => reject(new Error(`prometheus exited (${code}):\n${output}`)));
		});
		return prometheus;
	}

	/** The instant vector of `query`: each series' labels and value. */
	async query(query: string): Promise<{ metric: Record<string, string>; value: number }[]> {
		const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(query)}`);
		const body = (await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } };
		return body.data.result.map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
	}

	/**
	 * Asks until the query's first value is `expected`. Prometheus scrapes on its own schedule and
	 * tells no one, so its API is asked again after each answer; the test's timeout bounds the wait.
	 */
	async until(query: string, expected: number): Promise<void> {
		for (;;) {
			const [first] = await this.query(query);
			if (first?.value === expected) return;
			await new Promise((resolve) => setTimeout(resolve, 200));
		}
	}

	async stop(): Promise<void> {
		if (this.child.exitCode !== null) return;
		const exited = new Promise((resolve) => this.child.once('exit', resolve));
		this.child.kill('SIGTERM');
		await exited;
	}
}
