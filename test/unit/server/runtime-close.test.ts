import { describe, expect, it } from 'vitest';
import { runtimeClose, type RuntimeCloseParts } from '../../../src/lib/server/runtime-close';

function parts(failing: string[] = []) {
	const steps: string[] = [];
	const step = (name: string) => async () => {
		steps.push(name);
		if (failing.includes(name)) throw new Error(`${name} failed`);
	};
	const closeParts: RuntimeCloseParts = {
		expiry: { close: () => void steps.push('expiry') },
		keeper: { stopTakingOver: () => void steps.push('stop taking over'), stop: step('keeper') },
		runService: { stopAll: async (ms) => void steps.push(`runs ${ms}`) },
		toolbox: { close: step('mcp') },
		engine: { close: step('database') },
		telemetry: { close: step('telemetry') },
		drainMs: 500
	};
	return { steps, closeParts };
}

describe('runtimeClose', () => {
	it('stops runs first, then MCP, the database and telemetry, once however often it is called', async () => {
		const { steps, closeParts } = parts();
		const close = runtimeClose(closeParts);
		await Promise.all([close(), close()]);
		await close();
		expect(steps).toEqual(['expiry', 'stop taking over', 'runs 500', 'keeper', 'mcp', 'database', 'telemetry']);
	});

	it('goes on past a failed step and rejects with the last failure', async () => {
		const { steps, closeParts } = parts(['keeper', 'database']);
		await expect(runtimeClose(closeParts)()).rejects.toThrow('database failed');
		expect(steps).toEqual(['expiry', 'stop taking over', 'runs 500', 'keeper', 'mcp', 'database', 'telemetry']);
	});

	it('closes without a lease keeper on one process', async () => {
		const { steps, closeParts } = parts();
		await runtimeClose({ ...closeParts, keeper: null })();
		expect(steps).toEqual(['expiry', 'runs 500', 'mcp', 'database', 'telemetry']);
	});
});
