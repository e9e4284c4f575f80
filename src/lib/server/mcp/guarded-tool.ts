import { tool, type StructuredToolInterface } from '@langchain/core/tools';
import type { RunnableConfig } from '@langchain/core/runnables';

export type ToolGuardOptions = {
	/** Per call; on expiry the MCP SDK sends `notifications/cancelled` and the model gets a tool error. */
	timeoutMs: number;
	/** Longest result that enters the thread; the rest is cut with a note. */
	maxResultChars: number;
	/** Told when a call finds the server's connection gone, so it is restarted on next use. */
	onServerGone: (reason: string) => void;
};

const GONE = /not connected|connection closed|transport.*closed|EPIPE|ECONNRESET|ECONNREFUSED/i;

/** Tool output is untrusted text for the model: only text parts are kept. */
function resultText(out: unknown): string {
	const parts = Array.isArray(out) ? out : [out];
	return parts
		.map((part) => {
			if (typeof part === 'string') return part;
			if (part?.type === 'text') return String(part.text);
			return part?.type ? `[${part.type} content omitted]` : JSON.stringify(part);
		})
		.join('\n');
}

export function capText(text: string, max: number): string {
	if (text.length <= max) return text;
	return `${text.slice(0, max)}\n\n[Result cut at ${max} of ${text.length} characters (TOOL_RESULT_MAX_CHARS).]`;
}

/**
 * Wraps an MCP tool with what the runtime guarantees for every call: a timeout, cancellation with
 * the run, a size cap on what enters the thread, and a clear error when the server is gone.
 */
export function guardTool(inner: StructuredToolInterface, options: ToolGuardOptions): StructuredToolInterface {
	return tool(
		async (args: Record<string, unknown>, config?: RunnableConfig) => {
			const timeout = AbortSignal.timeout(options.timeoutMs);
			const signal = config?.signal ? AbortSignal.any([config.signal, timeout]) : timeout;
			try {
				return capText(resultText(await inner.invoke(args, { signal })), options.maxResultChars);
			} catch (e) {
				if (timeout.aborted && !config?.signal?.aborted) {
					throw new Error(`The tool ${inner.name} timed out after ${options.timeoutMs} ms and was cancelled.`);
				}
				const message = e instanceof Error ? e.message : String(e);
				if (GONE.test(message)) {
					options.onServerGone(message);
					throw new Error(
						`The tool server for ${inner.name} is not running (${message}); it will be restarted on its next use.`
					);
				}
				throw e;
			}
		},
		{ name: inner.name, description: inner.description, schema: inner.schema }
	);
}
