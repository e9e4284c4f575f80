/**
 * Pure. Human content as the protocol's clients send it: a string, or a list of content blocks
 * (the SDK's inputs and agent-chat-ui send `[{type: "text", text}]`, with images and files as
 * blocks of their own). Sophos keeps a human message as text, so text blocks are joined; an image
 * or file block is refused with its own code (UNSUPPORTED_CONTENT, 422) until attachments exist,
 * rather than dropped: the person would otherwise be answered about something the model never saw.
 */
import { z } from '../../protocol/zod';
import { ApiError } from '../errors';

const TextBlockSchema = z.object({ type: z.literal('text'), text: z.string() });
const OtherBlockSchema = z.object({ type: z.string() });

export const HumanContentSchema = z.union([z.string(), z.array(z.union([TextBlockSchema, OtherBlockSchema])).max(1000)]);
export type HumanContent = z.infer<typeof HumanContentSchema>;

/** The text of human content; throws ApiError UNSUPPORTED_CONTENT for any block that is not text. */
export function humanText(content: HumanContent, field = 'content'): string {
	if (typeof content === 'string') return content;
	const texts: string[] = [];
	for (const [i, block] of content.entries()) {
		if (block.type !== 'text' || !('text' in block)) {
			throw new ApiError(
				'UNSUPPORTED_CONTENT',
				`Unsupported content block "${block.type}" at ${field}.${i}: Sophos takes text only (no images or files yet)`
			);
		}
		texts.push(block.text);
	}
	return texts.join('');
}
