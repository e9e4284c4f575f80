import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ScriptedOllama } from '../test/support/scripted-ollama';
import { currentTurn, walkthroughScript, WALKTHROUGH_PROMPT } from '../test/support/scripts';
import { PageServer } from '../test/support/page-server';
import { Service } from '../test/support/service';

const page = await PageServer.start();
const walkthrough = walkthroughScript({
	url: page.url(),
	answer: { thinking: 'The page is a placeholder domain; one sentence will do.', chunkChars: 3, delayMs: 25 }
});
const ollama = await ScriptedOllama.start((request) => {
	const { user, after } = currentTurn(request);
	if (/fetch|save|remember|walkthrough/i.test(user)) return walkthrough(request);
	if (after.length) return { content: 'Done.' };
	return {
		thinking: 'This is the scripted demo model, so the reply is canned.',
		chunkChars: 3,
		delayMs: 25,
		content: [
			'**This is a scripted demo model**, not a real one: Sophos is running with a stand-in that speaks',
			"Ollama's protocol, so you can watch a durable run without installing a model.",
			'',
			`You wrote: _${user.slice(0, 200).replace(/[_*`]/g, '')}_`,
			'',
			'Try: "walkthrough", which fetches a local page and saves a summary to the knowledge graph with',
			'three tool calls, one of which fails on purpose. Reload the page mid-answer: the stream picks up',
			'where it was. Run `npm start` with Ollama for the real thing.'
		].join('\n')
	};
});
const dataDir = process.env.DEMO_DATA_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-demo-'));
const service = await Service.start({
	ollamaUrl: ollama.url,
	dataDir,
	env: { FETCH_ALLOWED_HOSTS: page.host, PORT: process.env.PORT ?? '3000', OLLAMA_THINK: 'true' }
}, Number(process.env.PORT ?? 3000));
service.child.stdout?.pipe(process.stdout);
service.child.stderr?.pipe(process.stderr);

console.log(`
Sophos demo: ${service.url}
  The model is SCRIPTED (no Ollama): answers are canned, tools and durability are real.
  Data: ${dataDir}
  Try the walkthrough prompt:
    ${WALKTHROUGH_PROMPT.replace('{url}', page.url())}
  Ctrl+C to stop.`);

const stop = async () => {
	await service.stop();
	await ollama.close();
	await page.close();
	process.exit(0);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
