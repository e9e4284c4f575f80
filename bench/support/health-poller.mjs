// Asks GET <url> every <every> ms, each answer allowed <timeout> ms, until its parent sends
// {stop}; then sends back {ms, failed}: every answer's latency, and how many failed or timed out.
// A process of its own, so that the bench's own work (reading SSE) does not delay the answers.
const [url, every, timeout] = process.argv.slice(2);
let stopped = false;
process.once('message', () => (stopped = true));
const ms = [];
let failed = 0;
while (!stopped) {
	const started = performance.now();
	try {
		const res = await fetch(url, { signal: AbortSignal.timeout(Number(timeout)) });
		await res.arrayBuffer();
		if (!res.ok) failed++;
	} catch {
		failed++;
	}
	ms.push(performance.now() - started);
	await new Promise((resolve) => setTimeout(resolve, Number(every)));
}
process.send({ ms, failed });
process.disconnect();
