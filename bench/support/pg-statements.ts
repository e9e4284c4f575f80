// Bench-only: where a PostgreSQL turn's time goes. Wraps pg's Client.query and Pool.connect in this
// process (never the app's code) and counts, per database, statements, round trips and their time
// by kind of statement, time waiting for a pooled connection, and the time backends spent waiting
// on locks (pg_stat_activity sampled from a connection of its own). Statements a pipelining
// connection sends while others are unanswered ride in their round trip: a round trip is counted,
// and timed from its first send to its last answer, under the kind of the statement that began it.
// Stretches with any statement of a database unanswered, on whatever connection, are what a turn
// waits on that database: the round trips in sequence on its way, which SQLite spends in-process.

import pg from 'pg';

type Tally = { count: number; ms: number };
/** `count`: round trips begun by a statement of the kind; `sent`: statements of the kind sent. */
type StatementTally = Tally & { sent: number };
/** `count`: stretches begun; `open`: statements unanswered now, `since` when the stretch began. */
type Unanswered = Tally & { open: number; since: number };
export type Breakdown = { statements: Map<string, StatementTally>; poolWait: Tally; unanswered: Unanswered; lockSamples: number; sampleMs: number };

// Names for the statements the runtime sends, first match wins; anything else is named by its first words.
const KINDS: [RegExp, string][] = [
	[/^SELECT (EXISTS|true) .* AS held,\s*\(SELECT thread_key FROM lg_threads/is, 'checkpoint put: fence and lock thread'],
	[/^BEGIN/i, 'BEGIN'],
	[/^COMMIT/i, 'COMMIT'],
	[/^ROLLBACK/i, 'ROLLBACK'],
	[/SET LOCAL synchronous_commit/i, 'SET LOCAL synchronous_commit (durable commit)'],
	[/pg_advisory_xact_lock\(\$1\)/i, 'claim lock (advisory)'],
	[/INSERT INTO runs/i, 'run claim'],
	[/INSERT INTO tool_calls/i, 'journal intent'],
	[/UPDATE tool_calls/i, 'journal outcome'],
	[/^WITH guard AS/i, 'checkpoint put: guarded write, the step writes in it (one flight)'],
	[/^WITH added AS/i, 'checkpoint put: write'],
	[/INSERT INTO lg_writes/i, 'checkpoint pending writes'],
	[/SELECT t\.thread_key, p\.type/i, 'checkpoint put: read parent and log tips'],
	[/INSERT INTO lg_log_items/i, 'checkpoint put: write'],
	[/^SELECT c\.model,\s*\(SELECT head FROM conversation_branches/i, "run opening: model, head, waiting calls, the run before"],
	[/INSERT INTO lg_logs/i, 'checkpoint put: new logs'],
	[/sophos_append_run_events/i, 'event batch + NOTIFY'],
	[/UPDATE runs SET status/i, 'run finish'],
	[/UPDATE runs SET lease_until/i, 'lease renew'],
	[/UPDATE runs SET owner/i, 'lease takeover scan'],
	[/UPDATE conversation_branches SET head/i, 'checkpoint put: branch head'],
	[/lg_checkpoints c JOIN lg_threads/i, 'checkpoint read'],
	[/^\s*SELECT c\.\*, w\.w_task_ids/i, 'checkpoint read'],
	[/^SELECT (1|\$\d+) FROM run_cancels/i, 'cancel watch: requests made before it began'],
	[/^SELECT (1|\$\d+) FROM conversations WHERE id/i, 'start: the conversation exists'],
	[/^SELECT to_char\(min\(expires_at\)/i, 'after the run: next approval expiry'],
	[/^SELECT conversation_id FROM queued_messages/i, 'after the run: queued messages'],
	[/^SELECT thread_id, tool_call_id, run_id/i, 'tools step: journal entry'],
	[/^SELECT tool_call_id, tool, args, reason_kind/i, 'approvals: decision or waiting calls'],
	[/^SELECT head, switched_after_run FROM conversation_branches/i, 'branch head'],
	[/^SELECT model FROM conversations/i, "conversation's model"],
	[/^SELECT (1|\$\d+) FROM allowed_tools/i, 'allowed tool']
];

export function kindOf(sql: string): string {
	for (const [pattern, kind] of KINDS) if (pattern.test(sql)) return kind;
	return sql.replace(/\s+/g, ' ').trim().slice(0, 60);
}

const tallies = new Map<string, Breakdown>();
const breakdownOf = (database: string) => {
	let b = tallies.get(database);
	if (!b) tallies.set(database, (b = { statements: new Map(), poolWait: { count: 0, ms: 0 }, unanswered: { count: 0, ms: 0, open: 0, since: 0 }, lockSamples: 0, sampleMs: 0 }));
	return b;
};
const add = (t: Tally, ms: number) => {
	t.count += 1;
	t.ms += ms;
};

/** Per connection, the round trip under way: when it began, its kind, the statements unanswered. */
const flights = new WeakMap<pg.Client, { started: number; kind: string; unanswered: number }>();

let installed = false;

/** Installs the wrappers once; from then on every query in this process is counted. */
export function instrumentPg(): void {
	if (installed) return;
	installed = true;
	const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
	pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
		const first = args[0];
		const sql = typeof first === 'string' ? first : (first as { text?: string } | undefined)?.text;
		if (sql === undefined || sampling.has(this)) return query.apply(this, args);
		const breakdown = breakdownOf(this.database ?? '');
		const { statements, unanswered } = breakdown;
		const kind = kindOf(sql);
		const t = statements.get(kind) ?? { count: 0, ms: 0, sent: 0 };
		statements.set(kind, t);
		t.sent += 1;
		let flight = flights.get(this);
		if (!flight) flights.set(this, (flight = { started: performance.now(), kind, unanswered: 0 }));
		flight.unanswered += 1;
		if (unanswered.open++ === 0) unanswered.since = performance.now();
		const tally = () => {
			// A reset meanwhile (after warm-up) left this statement's stretch uncounted.
			if (breakdown === tallies.get(this.database ?? '') && --unanswered.open === 0) add(unanswered, performance.now() - unanswered.since);
			if (--flight.unanswered > 0) return;
			flights.delete(this);
			add(statements.get(flight.kind)!, performance.now() - flight.started);
		};
		const callback = args.findIndex((a) => typeof a === 'function');
		if (callback >= 0) {
			const done = args[callback] as (...r: unknown[]) => void;
			args[callback] = (...r: unknown[]) => {
				tally();
				done(...r);
			};
			return query.apply(this, args);
		}
		const result = query.apply(this, args) as Promise<unknown> | undefined;
		return result?.then?.(
			(value) => {
				tally();
				return value;
			},
			(error: unknown) => {
				tally();
				throw error;
			}
		);
	} as typeof pg.Client.prototype.query;

	const connect = pg.Pool.prototype.connect as (...args: unknown[]) => unknown;
	pg.Pool.prototype.connect = function (this: pg.Pool, ...args: unknown[]) {
		const started = performance.now();
		const record = (client: pg.PoolClient | undefined) => {
			if (client) add(breakdownOf(client.database ?? '').poolWait, performance.now() - started);
		};
		if (typeof args[0] === 'function') {
			const done = args[0] as (e: Error | undefined, c: pg.PoolClient | undefined, r: unknown) => void;
			return connect.call(this, (e: Error | undefined, c: pg.PoolClient | undefined, r: unknown) => {
				record(c);
				done(e, c, r);
			});
		}
		return (connect.call(this) as Promise<pg.PoolClient>).then((c) => {
			record(c);
			return c;
		});
	} as typeof pg.Pool.prototype.connect;
}

const sampling = new Set<pg.Client>();

/** Samples backends waiting on a lock every `everyMs` until the returned stop is awaited. */
export async function sampleLockWaits(url: string, everyMs = 5): Promise<() => Promise<void>> {
	const client = new pg.Client({ connectionString: url });
	sampling.add(client);
	await client.connect();
	let stopped = false;
	const loop = (async () => {
		while (!stopped) {
			const started = performance.now();
			const { rows } = await client.query<{ datname: string; n: number }>(
				`SELECT datname, count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' GROUP BY datname`
			);
			for (const row of rows) breakdownOf(row.datname).lockSamples += row.n;
			for (const b of tallies.values()) b.sampleMs = everyMs;
			await new Promise((r) => setTimeout(r, Math.max(0, everyMs - (performance.now() - started))));
		}
	})();
	return async () => {
		stopped = true;
		await loop;
		await client.end();
	};
}

/** Clears every count (after warm-up). */
export function resetPgCounts(): void {
	tallies.clear();
}

/** A markdown table: a header, a row per kind and a total, each figure divided by `turns`. */
function perTurnTable(header: string[], rows: [string, number[]][], total: number[], turns: number, after: string[] = []): string {
	const line = (name: string, figures: number[]) => `| ${name} | ${figures.map((f) => (f / turns).toFixed(2)).join(' | ')} |`;
	return [
		`| ${header.join(' | ')} |`,
		`| --- | ${header.slice(1).map(() => '---:').join(' | ')} |`,
		...rows.map(([kind, figures]) => line(kind, figures)),
		line('**all statements**', total),
		...after
	].join('\n');
}

/** Each column's total over `rows`, of `width` figures each. */
const sum = (rows: [string, number[]][], width: number) => rows.reduce((s, [, f]) => s.map((x, i) => x + f[i]!), Array<number>(width).fill(0));

/** A markdown table of `database`'s counts divided by `turns`, biggest time first. */
export function breakdownTable(database: string, turns: number): string {
	const b = breakdownOf(database);
	const rows = [...b.statements].sort((x, y) => y[1].ms - x[1].ms).map(([kind, t]): [string, number[]] => [kind, [t.sent, t.count, t.ms]]);
	return perTurnTable(
		['statement kind', 'statements per turn', 'round trips begun per turn', 'ms per turn (send to last answer)'],
		rows,
		sum(rows, 3),
		turns,
		[
			`| waiting for a pooled connection | – | ${(b.poolWait.count / turns).toFixed(2)} | ${(b.poolWait.ms / turns).toFixed(2)} |`,
			`| some statement unanswered (stretches in sequence, any connection) | – | ${(b.unanswered.count / turns).toFixed(2)} | ${(b.unanswered.ms / turns).toFixed(2)} |`,
			`| waiting on locks (backends sampled every ${b.sampleMs || 5} ms) | – | – | ${((b.lockSamples * (b.sampleMs || 5)) / turns).toFixed(2)} |`
		]
	);
}

type ServerTally = { calls: number; execMs: number; planMs: number };
type ServerTimes = Map<string, Map<string, ServerTally>>;

/**
 * The settings that make the server keep its own time per statement (pg_stat_statements, planning
 * included): what a round trip costs inside PostgreSQL, beside what it costs from send to answer here.
 */
export const SERVER_TIMING_SETTINGS = { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track_planning': 'on' };

/**
 * A reader of the server's statement times per database and kind, as totals so far: the measured
 * stretch is the difference of two reads. The extension is created in the `postgres` database,
 * whose view shows every database's statements to the superuser.
 */
export async function serverStatementTimes(adminUrl: string): Promise<{ read(): Promise<ServerTimes>; close(): Promise<void> }> {
	const client = new pg.Client({ connectionString: adminUrl });
	sampling.add(client);
	await client.connect();
	await client.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
	const read = async () => {
		const { rows } = await client.query<{ datname: string; query: string; calls: string; exec: number; plan: number }>(
			`SELECT d.datname, s.query, s.calls, s.total_exec_time AS exec, s.total_plan_time AS plan
			 FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid`
		);
		const times: ServerTimes = new Map();
		for (const row of rows) {
			const kinds = times.get(row.datname) ?? new Map<string, ServerTally>();
			times.set(row.datname, kinds);
			const kind = kindOf(row.query);
			const t = kinds.get(kind) ?? { calls: 0, execMs: 0, planMs: 0 };
			kinds.set(kind, { calls: t.calls + Number(row.calls), execMs: t.execMs + row.exec, planMs: t.planMs + row.plan });
		}
		return times;
	};
	return { read, close: () => client.end() };
}

/**
 * A markdown table of the statements `database` ran between `before` and `after`, per turn, by the
 * server's clock: executing and planning.
 */
export function serverTable(before: ServerTimes, after: ServerTimes, database: string, turns: number): string {
	const was = before.get(database) ?? new Map<string, ServerTally>();
	const rows = [...(after.get(database) ?? new Map<string, ServerTally>())]
		.map(([kind, t]): [string, number[]] => {
			const b = was.get(kind) ?? { calls: 0, execMs: 0, planMs: 0 };
			return [kind, [t.calls - b.calls, t.execMs - b.execMs, t.planMs - b.planMs]];
		})
		.filter(([, [calls]]) => calls! > 0)
		.sort((x, y) => y[1][1]! + y[1][2]! - (x[1][1]! + x[1][2]!));
	return perTurnTable(
		['statement kind (server side)', 'statements per turn', 'executing, ms per turn', 'planning, ms per turn'],
		rows,
		sum(rows, 3),
		turns
	);
}
