// An SSE text as the page sees it: the protocol's parser and the page's live-run reducer, applied
// frame by frame as the browser's EventSource hands them over.

import { parseStreamEvent } from '../../src/lib/protocol/index.js';
import { applyRunEvent, emptyLiveRun, type LiveRun } from '../../src/lib/client/live-run.js';

export function asThePageSeesIt(text: string): LiveRun {
	let live = emptyLiveRun();
	let lastEventId = '';
	for (const block of text.split('\n\n').filter(Boolean)) {
		const fields = Object.fromEntries(block.split('\n').map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 2)]));
		if (fields.id) lastEventId = fields.id;
		if (!fields.event) continue;
		const event = parseStreamEvent(fields.event, fields.data ?? '', lastEventId);
		if (event) live = applyRunEvent(live, event);
	}
	return live;
}

/** The text of each item of the live transcript: assistant segments and tool results. */
export const itemTexts = (live: LiveRun): string[] => live.items.map((item) => (item.kind === 'assistant' ? item.text : item.content));
