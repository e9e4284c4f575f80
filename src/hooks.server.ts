import type { Handle, ServerInit } from '@sveltejs/kit';
import { startRuntime } from '$lib/server/runtime';
import { runtime, setRuntime } from '$lib/server/runtime-instance';
import { parseSettings } from '$lib/server/settings';
import { installShutdown } from '$lib/server/shutdown';

// Runs before adapter-node opens the port: a bad setting or config stops the start with its message.
export const init: ServerInit = async () => {
	const runtime = await startRuntime(parseSettings(process.env), process.env);
	setRuntime(runtime);
	installShutdown(runtime);
};

// A burst of requests arrives in one poll phase, where each would be handled in full before any
// timer, stream or other request got the event loop: requests take turns like runs do.
export const handle: Handle = async ({ event, resolve }) => {
	const wait = runtime().turn();
	if (wait) await wait;
	return resolve(event);
};
