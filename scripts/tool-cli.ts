// What the data tools (backup, restore, migrate) share: the settings the service reads, Sophos's
// version, and one way to end with a refusal.
import fs from 'node:fs';
import path from 'node:path';
import { parseSettings, SettingsError, type Settings } from '../src/lib/server/settings';
import { PortableError } from '../src/lib/server/portable/portable-error';

/** package.json's version, found upward from this module: built tools run from build/tools/. */
export function sophosVersion(): string {
	for (let dir = import.meta.dirname; ; dir = path.dirname(dir)) {
		const file = path.join(dir, 'package.json');
		if (fs.existsSync(file)) return (JSON.parse(fs.readFileSync(file, 'utf8')) as { version: string }).version;
		if (path.dirname(dir) === dir) return 'unknown';
	}
}

export function toolSettings(): Settings {
	return parseSettings(process.env);
}

/** Runs a tool's body; a refusal or bad settings end it with their message and exit code 1, anything else with its stack. */
export async function runTool(body: () => Promise<void> | void): Promise<void> {
	try {
		await body();
	} catch (e) {
		if (e instanceof PortableError || e instanceof SettingsError) {
			console.error(`Refused: ${e.message}`);
		} else {
			console.error(e);
		}
		process.exitCode = 1;
	}
}
