import type { ServerInit } from '@sveltejs/kit';
import { startRuntime } from '$lib/server/runtime';
import { setRuntime } from '$lib/server/runtime-instance';
import { parseSettings } from '$lib/server/settings';
import { installShutdown } from '$lib/server/shutdown';

// Runs before adapter-node opens the port: a bad setting or config stops the start with its message.
export const init: ServerInit = async () => {
	const runtime = await startRuntime(parseSettings(process.env), process.env);
	setRuntime(runtime);
	installShutdown(runtime);
};
