import type { Runtime } from './runtime';

let instance: Runtime | null = null;

/** Set once by the server's `init` hook; routes read it. */
export function setRuntime(runtime: Runtime): void {
	if (instance) throw new Error('The runtime is already started');
	instance = runtime;
}

export function runtime(): Runtime {
	if (!instance) throw new Error('The runtime has not started');
	return instance;
}
