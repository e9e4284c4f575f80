import { describe, expect, it } from 'vitest';
import {
	matchingPrompts,
	missingArguments,
	promptArguments,
	promptText,
	resourceChoices,
	slashQuery
} from '../../../src/lib/client/mcp-choices';
import { ChatController } from '../../../src/lib/client/chat-controller';
import type { McpPrompt } from '../../../src/lib/protocol';
import { FakeApi, FakeStreams } from '../../support/client-fakes';

const review: McpPrompt = {
	name: 'docs__review',
	server: 'docs',
	prompt: 'review',
	title: 'Code review',
	arguments: [{ name: 'topic', required: true }, { name: 'tone' }]
};
const hello: McpPrompt = { name: 'docs__hello', server: 'docs', prompt: 'hello', arguments: [] };

describe('the composer’s MCP choices', () => {
	it('reads a / command only while the box holds that one word', () => {
		expect(slashQuery('/')).toBe('');
		expect(slashQuery('/rev')).toBe('rev');
		expect(slashQuery('/rev it')).toBeNull();
		expect(slashQuery('text /rev')).toBeNull();
		expect(slashQuery('')).toBeNull();
	});

	it('matches prompts by name or title, ignoring case', () => {
		expect(matchingPrompts([review, hello], '')).toEqual([review, hello]);
		expect(matchingPrompts([review, hello], 'CODE')).toEqual([review]);
		expect(matchingPrompts([review, hello], 'hel')).toEqual([hello]);
		expect(matchingPrompts([review, hello], 'nothing')).toEqual([]);
	});

	it('checks required arguments and sends only the filled ones', () => {
		expect(missingArguments(review, { topic: '  ', tone: 'kind' })).toEqual(['topic']);
		expect(missingArguments(review, { topic: 'x' })).toEqual([]);
		expect(promptArguments({ topic: 'x', tone: ' ' })).toEqual({ topic: 'x' });
	});

	it('fills the box with the user messages only', () => {
		expect(promptText([{ role: 'user', text: 'one' }, { role: 'assistant', text: 'made up' }, { role: 'user', text: 'two' }])).toBe('one\n\ntwo');
	});

	it('offers every listed resource, labelled by server and title or name', () => {
		const choices = resourceChoices({
			servers: [{ server: 'docs', resources: [{ uri: 'file:///a', name: 'a', title: 'The A' }, { uri: 'file:///b', name: 'b' }], templates: [] }],
			unavailable: []
		});
		expect(choices).toEqual([
			{ server: 'docs', uri: 'file:///a', label: 'docs: The A' },
			{ server: 'docs', uri: 'file:///b', label: 'docs: b' }
		]);
	});
});

describe('a message with attachments', () => {
	it('sends them with the message, and sends none when there are none', async () => {
		const api = new FakeApi();
		const chat = new ChatController({ api, openStream: new FakeStreams().open });
		await chat.start(null);
		expect(await chat.send('read this', [{ server: 'docs', uri: 'file:///a' }])).toBe(true);
		expect(api.calls.startRun[0]![0]).toMatchObject({ message: 'read this', attachments: [{ server: 'docs', uri: 'file:///a' }] });
		const plain = new FakeApi();
		const other = new ChatController({ api: plain, openStream: new FakeStreams().open });
		await other.start(null);
		await other.send('just text');
		expect(plain.calls.startRun[0]![0]).not.toHaveProperty('attachments');
	});
});
