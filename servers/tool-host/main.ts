// Entry point of the tool host (`npm run tool-host`). Settings and the server list are read before
// anything starts, so a bad environment or config stops the process at once with the reason on stderr.
import { loadHostConfig, type HostConfig } from './host-config';
import { parseSettings, type Settings } from './settings';
import { ToolHost } from './tool-host';

let settings: Settings;
let config: HostConfig;
try {
	settings = parseSettings(process.env);
	config = await loadHostConfig(settings.configFile, process.env);
} catch (error) {
	if (!(error instanceof Error)) throw error;
	process.stderr.write(`tool-host: ${error.message}\n`);
	process.exit(2);
}

// What the hosted servers write (the memory graph) is the users' data: files they create are
// readable by this user alone, as Sophos's own are. Children inherit the mask.
process.umask(0o077);

const host = new ToolHost(config, settings);
let stopping = false;
const stop = (signal: NodeJS.Signals) => {
	if (stopping) return;
	stopping = true;
	console.log(`tool-host: ${signal}: closing sessions and servers`);
	host.close().then(
		() => process.exit(0),
		(e) => {
			console.error('tool-host: shutdown failed', e);
			process.exit(1);
		}
	);
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);

try {
	await host.start();
} catch (error) {
	process.stderr.write(`tool-host: could not start: ${(error as Error).message}\n`);
	await host.close();
	process.exit(1);
}
