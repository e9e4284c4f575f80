// `npm run demo`: the service with a SCRIPTED model server instead of Ollama, so a newcomer can
// watch a durable run stream end to end without a model. The model's replies are canned.
import { spawn } from 'node:child_process';
import { ensureBuild, ensureDependencies, root } from './ensure.mjs';

ensureDependencies();
ensureBuild();
const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo-server.ts'], {
	cwd: root,
	stdio: 'inherit',
	env: process.env
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => process.exit(code ?? 0));
