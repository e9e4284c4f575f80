// Preloaded into the service by the benchmarks (NODE_OPTIONS=--import): samples event-loop delay
// and writes it, with peak RSS and the CPU time used, to $BENCH_LOOP_LAG_FILE when the process exits.
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const histogram = monitorEventLoopDelay({ resolution: 1 });
histogram.enable();
let cpu = process.cpuUsage();
// The bench sends SIGUSR2 when the load starts, so start-up (module loading, MCP spawns) is not counted.
process.on('SIGUSR2', () => {
	histogram.reset();
	cpu = process.cpuUsage();
});
process.on('exit', () => {
	histogram.disable();
	const used = process.cpuUsage(cpu);
	const ms = (ns) => Number((ns / 1e6).toFixed(2));
	fs.writeFileSync(
		process.env.BENCH_LOOP_LAG_FILE,
		JSON.stringify({
			p50: ms(histogram.percentile(50)),
			p99: ms(histogram.percentile(99)),
			max: ms(histogram.max),
			maxRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
			cpuMs: Math.round((used.user + used.system) / 1000)
		})
	);
});
