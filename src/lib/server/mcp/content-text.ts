import type { PromptMessage } from '@modelcontextprotocol/sdk/types.js';

/** Pure. A prompt message's content as text: text kept, an embedded text resource inlined, other parts named. */
export function textOfPart(part: PromptMessage['content']): string {
	if (part.type === 'text') return part.text;
	if (part.type === 'resource' && 'text' in part.resource) return part.resource.text;
	return `[${part.type} content omitted]`;
}
