import type { ConversationSummary, MessageDto } from '../../protocol';

/** Pure: a conversation as a Markdown transcript, in the reference's layout. */

/** A fence longer than any backtick run inside, so tool output cannot close it early. */
function fence(content: string, lang = ''): string[] {
	const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
	const ticks = '`'.repeat(longest + 1);
	return [`${ticks}${lang}`, ...content.split('\n'), ticks];
}

function messageBlock(m: MessageDto): string[] {
	if (m.role === 'user') return ['## User', '', m.content, ''];
	if (m.role === 'tool') {
		return [`### Tool result: \`${m.name ?? '?'}\` (${m.status ?? 'success'})`, '', ...fence(m.content), ''];
	}
	const lines = ['## Assistant', ''];
	if (m.reasoning) lines.push('<details><summary>Thinking</summary>', '', m.reasoning, '', '</details>', '');
	if (m.content) lines.push(m.content, '');
	for (const call of m.toolCalls ?? []) {
		lines.push(`> **Tool call** \`${call.name}\` (${call.id ?? '?'})`, '>');
		lines.push(...fence(JSON.stringify(call.args, null, 2), 'json').map((l) => `> ${l}`.trimEnd()), '');
	}
	return lines;
}

export function markdownTranscript(
	conversation: Pick<ConversationSummary, 'id' | 'title' | 'createdAt' | 'updatedAt'>,
	messages: MessageDto[]
): string {
	return [
		`# ${conversation.title}`,
		'',
		`- Conversation / thread_id: \`${conversation.id}\``,
		`- Created: ${conversation.createdAt}`,
		`- Updated: ${conversation.updatedAt}`,
		'',
		...messages.flatMap(messageBlock)
	].join('\n');
}
