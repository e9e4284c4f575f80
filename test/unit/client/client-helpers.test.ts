import { describe, expect, it } from 'vitest';
import { IllegalTransitionError, canTransition, transition } from '../../../src/lib/client/chat-status';
import { codeSpans, readinessAdvice } from '../../../src/lib/client/readiness-advice';
import { relativeTime } from '../../../src/lib/client/relative-time';
import { isNearBottom } from '../../../src/lib/client/scroll';
import type { Readiness } from '../../../src/lib/protocol';

describe('chat status', () => {
	it('allows the documented edges and throws on others', () => {
		expect(transition('idle', 'sending')).toBe('sending');
		expect(transition('sending', 'streaming')).toBe('streaming');
		expect(transition('streaming', 'stopping')).toBe('stopping');
		expect(transition('stopping', 'idle')).toBe('idle');
		expect(() => transition('idle', 'stopping')).toThrow(IllegalTransitionError);
		expect(() => transition('sending', 'stopping')).toThrow('Illegal chat status transition: sending → stopping');
		expect(canTransition('loading', 'sending')).toBe(false);
	});
});

describe('relativeTime', () => {
	const now = new Date(2026, 10, 30, 15, 0, 0).getTime();
	const at = (d: Date) => d.toISOString();
	it('says how long ago in words a person uses', () => {
		expect(relativeTime(at(new Date(now - 20_000)), now)).toBe('just now');
		expect(relativeTime(at(new Date(now - 5 * 60_000)), now)).toBe('5 min ago');
		expect(relativeTime(at(new Date(2026, 10, 30, 9, 0)), now)).toBe('6 h ago');
		expect(relativeTime(at(new Date(2026, 10, 29, 23, 0)), now)).toBe('Yesterday');
		expect(relativeTime(at(new Date(2026, 10, 26, 12, 0)), now, 'en-US')).toBe('Thu');
		expect(relativeTime(at(new Date(2026, 9, 3, 12, 0)), now, 'en-US')).toBe('Oct 3');
		expect(relativeTime(at(new Date(2025, 9, 3, 12, 0)), now, 'en-US')).toBe('Oct 3, 2025');
		expect(relativeTime('garbage', now)).toBe('');
	});
});

describe('readinessAdvice', () => {
	it('gives nothing when all is well', () => {
		expect(
			readinessAdvice({
				status: 'ok',
				defaultModel: 'ollama/qwen3',
				checks: { database: { status: 'ok' }, model: { status: 'ok' }, providers: {}, mcp: {} }
			})
		).toEqual([]);
		expect(readinessAdvice(null)).toEqual([]);
	});

	it('says what to do for the model and for each tool server that is down', () => {
		const readiness: Readiness = {
			status: 'error',
			message: 'x',
			defaultModel: 'ollama/qwen3',
			checks: {
				database: { status: 'ok' },
				model: { status: 'error', message: 'Ollama is not reachable at http://127.0.0.1:9: start it with `ollama serve`' },
				providers: { ollama: { status: 'error', kind: 'ollama', message: 'Ollama is not reachable at http://127.0.0.1:9: start it with `ollama serve`' } },
				mcp: { memory: { status: 'ok', tools: 9 }, fetch: { status: 'error', tools: 0, message: 'exited' }, slow: { status: 'starting', tools: 0 } }
			}
		};
		const advice = readinessAdvice(readiness);
		expect(advice.map((a) => a.key)).toEqual(['model', 'mcp:fetch']);
		expect(advice[0]!.detail).toContain('http://127.0.0.1:9');
		expect(advice[0]!.fix).toContain('ollama pull');
		expect(advice[1]!.title).toContain('"fetch"');
	});

	it('splits backticked commands out as code', () => {
		expect(codeSpans('run `ollama serve` now')).toEqual([
			{ code: false, text: 'run ' },
			{ code: true, text: 'ollama serve' },
			{ code: false, text: ' now' }
		]);
	});
});

describe('isNearBottom', () => {
	it('follows within the slack and stops beyond it', () => {
		expect(isNearBottom({ scrollTop: 560, scrollHeight: 1000, clientHeight: 400 })).toBe(true);
		expect(isNearBottom({ scrollTop: 500, scrollHeight: 1000, clientHeight: 400 })).toBe(false);
	});
});
