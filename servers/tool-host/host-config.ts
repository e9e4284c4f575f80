// The servers the tool host runs: `$TOOL_HOST_CONFIG` (default config/tool-host.json), server name
// → stdio command, the shape of a stdio entry in Sophos's mcp.json. Read and parsed strictly once
// at start, so a typo is an error naming its key rather than a server started without it.
import { z } from 'zod';
import { expandReferences, readJsonConfig, unsetMessage } from '../../src/lib/server/config-file';

const HostedServerSchema = z.strictObject({
	command: z.string().min(1),
	args: z.array(z.string()).default([]),
	/** Added to the SDK's small default environment; nothing else of the host's reaches the child. */
	env: z.record(z.string(), z.string()).default({}),
	cwd: z.string().optional()
});

const HostConfigSchema = z
	.record(z.string().regex(/^[A-Za-z0-9_-]+$/, 'server names may hold letters, digits, _ and -'), HostedServerSchema)
	.refine((servers) => Object.keys(servers).length > 0, 'names no server');

export type HostedServer = z.infer<typeof HostedServerSchema>;
export type HostConfig = Record<string, HostedServer>;

/** The config with `${NAME}` and `${NAME:-default}` in args and env expanded from `vars`. */
export async function loadHostConfig(file: string, vars: Record<string, string | undefined>): Promise<HostConfig> {
	const servers = await readJsonConfig(file, HostConfigSchema, 'tool host configuration');
	const unset: string[] = [];
	const expand = (where: string, value: string) => {
		const expanded = expandReferences(value, vars);
		for (const name of expanded.unset) unset.push(`${where} ${unsetMessage(name)}`);
		return expanded.value;
	};
	const resolved = Object.fromEntries(
		Object.entries(servers).map(([name, s]) => [
			name,
			{
				...s,
				args: s.args.map((a, i) => expand(`${name}.args.${i}`, a)),
				env: Object.fromEntries(Object.entries(s.env).map(([k, v]) => [k, expand(`${name}.env.${k}`, v)]))
			}
		])
	);
	if (unset.length) throw new Error(`Invalid tool host configuration in ${file}: ${unset.join('; ')}`);
	return resolved;
}
