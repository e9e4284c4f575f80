import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ScriptedOllama } from '../support/scripted-ollama';
import { answerScript } from '../support/scripts';
import { Service } from '../support/service';

/** Issue 13: reachable from other machines means a token, or a deliberate, loud choice not to. */
describe('starting the service', () => {
	let ollama: ScriptedOllama;
	beforeAll(async () => {
		ollama = await ScriptedOllama.start(answerScript('Hi.'));
	});
	afterAll(() => ollama.close());

	it.each([
		[{ HOST: '0.0.0.0' }, /Invalid settings: SOPHOS_TOKEN is required when HOST="0\.0\.0\.0" \(not a loopback address\)/],
		[{ HOST: '::' }, /SOPHOS_TOKEN is required when HOST="::"/],
		[{ ALLOWED_HOSTS: 'sophos.test' }, /SOPHOS_TOKEN is required when ALLOWED_HOSTS is set/],
		[{ HOST: '0.0.0.0', SOPHOS_INSECURE_NO_AUTH: 'no' }, /SOPHOS_TOKEN is required when HOST="0\.0\.0\.0"/],
		[{ ALLOWED_HOSTS: 'http://sophos.test' }, /ALLOWED_HOSTS="http:\/\/sophos\.test": "http:\/\/sophos\.test" is not a host/],
		[{ ALLOWED_ORIGINS: '*' }, /ALLOWED_ORIGINS="\*": "\*" is not an origin/],
		[{ SOPHOS_TOKEN: 'short;token' }, /SOPHOS_TOKEN=\(hidden\): 16 to 512/],
		[{ SOPHOS_INSECURE_NO_AUTH: 'maybe' }, /SOPHOS_INSECURE_NO_AUTH="maybe"/]
	])('refuses to start with %j, before it listens, saying why', async (env, why) => {
		const start = Service.start({ ollamaUrl: ollama.url, env });
		const error = (await start.then(
			() => new Error('started'),
			(e: Error) => e
		)) as Error;
		expect(error.message).toMatch(/^service exited \(1\) before listening/);
		expect(error.message).toMatch(why);
		expect(error.message).not.toContain('Listening on');
		expect(error.message).not.toContain('short;token');
	});

	it('starts without a token when told to, and warns at start', async () => {
		const service = await Service.start({ ollamaUrl: ollama.url, env: { ALLOWED_HOSTS: 'sophos.test', SOPHOS_INSECURE_NO_AUTH: 'true' } });
		try {
			// Warned on stderr, "Listening on" on stdout: two pipes, read in either order.
			await service.waitForOutput(/WARNING: no token guards this service although ALLOWED_HOSTS is set .* because SOPHOS_INSECURE_NO_AUTH=true/);
			expect((await service.fetch('/api/conversations')).status).toBe(200);
		} finally {
			await service.stop();
		}
	});

	it('listens on loopback when HOST is empty, where adapter-node alone would take every interface', async () => {
		const service = await Service.start({ ollamaUrl: ollama.url, env: { HOST: '' } });
		try {
			expect(service.output).toContain(`Listening on http://127.0.0.1:${service.port}`);
			expect(service.output).not.toContain('WARNING');
		} finally {
			await service.stop();
		}
	});
});
