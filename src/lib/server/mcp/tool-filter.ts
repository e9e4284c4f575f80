/** Pure: which `server__tool` names the model is offered, from MCP_TOOLS_ALLOW / MCP_TOOLS_DENY. */

// Node 20 has no stable glob matcher (path.matchesGlob arrived in 22); `*` and `?` are all we need.
function globToRegExp(glob: string): RegExp {
	const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
	return new RegExp(`^${body}$`);
}

export function createToolFilter(allow?: string[], deny?: string[]): (name: string) => boolean {
	const allowed = allow?.map(globToRegExp);
	const denied = (deny ?? []).map(globToRegExp);
	return (name) =>
		(!allowed || allowed.some((re) => re.test(name))) && !denied.some((re) => re.test(name));
}
