import type { Attachment, ResourceContents } from '../../protocol';
import type { McpRefusal } from './mcp-refusal';
import type { McpResources } from './resources';

/**
 * A message's attached resources, read now (each capped as GET /api/mcp/resources/read is), and
 * the message's text with them after it: what enters the thread as the human message, so the
 * checkpoint holds what the model was sent. Any refusal (unknown server, binary, too large) refuses
 * the message before a run is claimed.
 */
export async function withAttachments(
	message: string,
	attachments: readonly Attachment[],
	resources: McpResources
): Promise<{ message: string } | McpRefusal> {
	const read = await Promise.all(attachments.map((a) => resources.read(a.server, a.uri)));
	const refusal = read.find((r) => 'refused' in r);
	if (refusal && 'refused' in refusal) return refusal;
	return { message: [message, ...(read as ResourceContents[]).map(attachmentText)].join('\n\n') };
}

const OPEN = '<resource server="';
const CLOSE = '\n</resource>';
const HEAD = /<resource server="([^"]*)" uri="([^"]*)">\n/y;

/**
 * Pure. One resource as the message carries it: marked with its server and URI, so the model knows
 * what it is. The markup is also the resource's provenance (`attachedResources`), so its text cannot
 * open a block of its own: `<resource` in it is written `&lt;resource`, and `"` in the URI `%22`.
 */
export function attachmentText(resource: ResourceContents): string {
	const body = resource.contents.map((c) => c.text).join('\n').replaceAll('<resource', '&lt;resource').replaceAll('</resource', '&lt;/resource');
	return `${OPEN}${resource.server}" uri="${resource.uri.replaceAll('"', '%22')}">\n${body}${CLOSE}`;
}

export type AttachedResource = { server: string; uri: string; text: string };

/**
 * Pure. A human message's text split into what the person wrote and the resources attached after
 * it, read back from the markup `withAttachments` wrote: the thread is where an attachment's
 * provenance lives, so a resumed run derives it as the first attempt did. Blocks are taken from the
 * end, each from the last `<resource` before its close, which no resource's text can hold: what the
 * person wrote can only add blocks of its own, never change a server's block.
 */
export function attachedResources(message: string): { text: string; resources: AttachedResource[] } {
	const resources: AttachedResource[] = [];
	let end = message.length;
	while (message.endsWith(CLOSE, end)) {
		const start = message.lastIndexOf(`\n\n${OPEN}`, end - CLOSE.length);
		if (start < 0) break;
		HEAD.lastIndex = start + 2;
		const head = HEAD.exec(message);
		if (!head || HEAD.lastIndex > end - CLOSE.length) break;
		resources.unshift({ server: head[1]!, uri: head[2]!, text: message.slice(HEAD.lastIndex, end - CLOSE.length) });
		end = start;
	}
	return { text: message.slice(0, end), resources };
}
