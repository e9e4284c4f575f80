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

/** Pure. One resource as the message carries it: marked with its server and URI, so the model knows what it is. */
export function attachmentText(resource: ResourceContents): string {
	const body = resource.contents.map((c) => c.text).join('\n');
	return `<resource server="${resource.server}" uri="${resource.uri.replaceAll('"', '%22')}">\n${body}\n</resource>`;
}
