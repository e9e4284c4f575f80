// Each benchmark's headline figures for the one table `npm run bench` prints at the end. A bench
// run on its own (no BENCH_SUMMARY_FILE) prints only its own table, so this is a no-op then.
import fs from 'node:fs';

export interface SummaryRow {
	/** What is measured, with its unit. */
	figure: string;
	/** Sophos's figure, formatted. */
	ours: string;
	/** The same figure for the stock saver or bare LangGraph in the same run, or '–' when there is none. */
	baseline: string;
	/** The goal as written in the performance issue, or '' when the figure has none. */
	goal: string;
	/** Whether the goal is met; undefined when there is no goal. */
	met?: boolean;
}

export function reportSummary(bench: string, rows: SummaryRow[]): void {
	const file = process.env.BENCH_SUMMARY_FILE;
	if (!file) return;
	fs.appendFileSync(file, rows.map((row) => JSON.stringify({ bench, ...row })).join('\n') + '\n');
}
