import fs from 'node:fs/promises';

const FALLBACK = 'You are an AI assistant with access to MCP tools.';

/** Read on every model call, so an edit applies to the next step without a restart. */
export async function readSystemPrompt(file: string): Promise<string> {
	let text: string;
	try {
		text = await fs.readFile(file, 'utf8');
	} catch (e) {
		throw new Error(`The system prompt ${file} cannot be read: ${(e as Error).message}`);
	}
	return text.trim() || FALLBACK;
}
