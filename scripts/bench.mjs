// `npm run bench`: runs every benchmark file at the top level of bench/ (*.ts, *.mjs, *.js), in
// name order, each in its own Node process with tsx. `npm run bench -- <name> [args…]` runs only
// bench/<name>.* and passes it the remaining arguments. Helpers for benchmarks go in sub-folders.
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuild, ensureDependencies, root, run } from './ensure.mjs';

const dir = path.join(root, 'bench');
const files = fs
	.readdirSync(dir, { withFileTypes: true })
	.filter((entry) => entry.isFile() && /\.(ts|mjs|js)$/.test(entry.name))
	.map((entry) => entry.name)
	.sort();

const [name, ...rest] = process.argv.slice(2);
const only = files.filter((file) => file.replace(/\.(ts|mjs|js)$/, '') === name);
if (name !== undefined && only.length === 0) {
	console.error(`No benchmark bench/${name}.*; available: ${files.join(', ') || 'none'}`);
	process.exit(1);
}

ensureDependencies();
ensureBuild();
for (const file of only.length > 0 ? only : files) {
	console.log(`\n== bench/${file}`);
	run(process.execPath, ['--import', 'tsx', path.join('bench', file), ...(only.length > 0 ? rest : [])]);
}
