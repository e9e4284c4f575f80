// `npm run bench`: runs every benchmark file at the top level of bench/ (*.ts, *.mjs, *.js), in
// name order, each in its own Node process with tsx. `npm run bench -- <name> [args…]` runs only
// bench/<name>.* and passes it the remaining arguments. Helpers for benchmarks go in sub-folders.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuild, ensureDependencies, ensurePostgres, root, run } from './ensure.mjs';

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
ensurePostgres();
ensureBuild();
const summaryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'sophos-bench-')), 'summary.jsonl');
const env = { ...process.env, BENCH_SUMMARY_FILE: summaryFile };
for (const file of only.length > 0 ? only : files) {
	console.log(`\n== bench/${file}`);
	run(process.execPath, ['--import', 'tsx', path.join('bench', file), ...(only.length > 0 ? rest : [])], { env });
}
printSummary();

/** One table of every bench's headline figures, beside the baseline measured in the same run. */
function printSummary() {
	const rows = fs.existsSync(summaryFile)
		? fs.readFileSync(summaryFile, 'utf8').trim().split('\n').map((line) => JSON.parse(line))
		: [];
	fs.rmSync(path.dirname(summaryFile), { recursive: true, force: true });
	if (rows.length === 0) return;
	const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
	const command = ['npm run bench', ...(only.length > 0 ? ['--', name, ...rest] : [])].join(' ');
	console.log('\n== summary');
	console.log(`Machine: ${cpu} × ${os.cpus().length}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()} ${os.release()}`);
	console.log(`Reproduce: ${command}\n`);
	console.log('| bench | figure | Sophos | stock saver / bare LangGraph | goal | met |');
	console.log('| --- | --- | ---: | ---: | --- | --- |');
	for (const row of rows) {
		const met = row.met === undefined ? '' : row.met ? 'yes' : 'no';
		console.log(`| ${row.bench} | ${row.figure} | ${row.ours} | ${row.baseline} | ${row.goal} | ${met} |`);
	}
}
