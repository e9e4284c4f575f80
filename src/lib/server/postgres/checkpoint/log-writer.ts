// Lays out the changed array channel values of one put as extensions of the parent's item logs.
// The planning is the SQLite store's (checkpoint/segments.ts); this module serialises the new
// items for all channels at once, and the put writes them in its one statement. Runs inside the
// put's transaction, with the thread row locked, so no other writer can move a log's tip between
// the read of the tips and the append.

import type pg from 'pg';
import type { SerializerProtocol } from '@langchain/langgraph-checkpoint';
import { pack, unpack } from '../../checkpoint/blob.js';
import type { ItemCache } from '../../checkpoint/item-cache.js';
import type { AppliedLogWrite } from '../../checkpoint/segments.js';
import {
	itemsToWrite,
	needsNewLog,
	planLogWrite,
	segmentsAfter,
	totalLength,
	type Segment
} from '../../checkpoint/segments.js';
import { putSql } from './put-statements.js';
import { checkpointSql, type ItemRow } from './store.js';

export interface ArrayValue {
	channel: string;
	value: unknown[];
	/** The parent's segments for this channel, if the parent held it as a log. */
	parentSegments?: readonly Segment[];
}

export interface PreparedLogWrites {
	applied: AppliedLogWrite[];
	items: ItemRow[];
	logLengths: { logId: number; length: number }[];
}

export class LogWriter {
	constructor(
		private readonly cache: ItemCache,
		private readonly serde: SerializerProtocol,
		private readonly maxSegments: number
	) {}

	/** `tips`: the current length of every log of the thread. */
	async prepare(
		client: pg.PoolClient,
		threadKey: number,
		arrays: readonly ArrayValue[],
		tips: ReadonlyMap<number, number>
	): Promise<PreparedLogWrites> {
		const extend = await this.extendsParents(client, arrays);
		const lastLog = (segments?: readonly Segment[]) => segments?.[segments.length - 1]?.[0];
		const plans = arrays.map((array, i) => {
			const last = lastLog(array.parentSegments);
			return planLogWrite({
				parentSegments: array.parentSegments,
				extendsParent: extend[i]!,
				childLength: array.value.length,
				tipLength: last === undefined ? undefined : tips.get(last),
				maxSegments: this.maxSegments
			});
		});
		const newLogs = await putSql.createLogs(
			client,
			threadKey,
			plans.filter((plan, i) => needsNewLog(plan, arrays[i]!.value.length)).length
		);
		const rows: ItemRow[] = [];
		const applied: AppliedLogWrite[] = [];
		for (const [i, array] of arrays.entries()) {
			const plan = plans[i]!;
			const { start, end } = itemsToWrite(plan, array.parentSegments, array.value.length);
			const logId = plan.kind === 'append' ? plan.logId : needsNewLog(plan, array.value.length) ? newLogs.shift() : undefined;
			const from = plan.kind === 'append' ? plan.from : 0;
			const objects = array.value.slice(start, end);
			const serialised = await Promise.all(objects.map((item) => this.serde.dumpsTyped(item)));
			serialised.forEach(([type, bytes], k) => rows.push({ log_id: logId!, seq: from + k, type, ...packed(bytes) }));
			const types = new Set(serialised.map(([type]) => type));
			applied.push({
				channel: array.channel,
				segments: segmentsAfter(plan, array.parentSegments, array.value.length, logId),
				logId,
				from,
				objects,
				bytes: serialised.map(([, bytes]) => bytes),
				type: types.size === 1 ? [...types][0] : undefined
			});
		}
		const logLengths = applied.flatMap(({ logId, from, objects }) =>
			logId === undefined || objects.length === 0 ? [] : [{ logId, length: from + objects.length }]
		);
		return { applied, items: rows, logLengths };
	}

	/** After commit: the new items join the cache, so the next turn compares them by identity. */
	remember(applied: readonly AppliedLogWrite[]): void {
		for (const write of applied) if (write.logId !== undefined) this.cache.append(write.logId, write.from, write.objects);
	}

	/**
	 * Per array: whether the parent's items are a prefix of the child's. Items the cache holds are
	 * compared by identity (LangGraph passes the same message objects from step to step); the rest
	 * by their serialised bytes, read for all arrays in one query, so an in-place replacement (same
	 * id, new content) is caught.
	 */
	private async extendsParents(client: pg.PoolClient, arrays: readonly ArrayValue[]): Promise<boolean[]> {
		const unconfirmed = arrays.map(({ value, parentSegments }) => {
			if (parentSegments === undefined || value.length < totalLength(parentSegments)) return undefined;
			const checks: { logId: number; seq: number; item: unknown }[] = [];
			let position = 0;
			for (const [logId, length] of parentSegments) {
				const cached = this.cache.peek(logId);
				for (let seq = 0; seq < length; seq += 1, position += 1) {
					if (cached === undefined || seq >= cached.length || cached[seq] !== value[position]) {
						checks.push({ logId, seq, item: value[position] });
					}
				}
			}
			return checks;
		});
		const ranges = new Map<number, { logId: number; from: number; to: number }>();
		for (const check of unconfirmed.flat()) {
			if (check === undefined) continue;
			const range = ranges.get(check.logId) ?? { logId: check.logId, from: check.seq, to: check.seq + 1 };
			ranges.set(check.logId, { ...range, from: Math.min(range.from, check.seq), to: Math.max(range.to, check.seq + 1) });
		}
		const stored = new Map<string, ItemRow>();
		for (const row of await checkpointSql.items(client, [...ranges.values()])) stored.set(`${row.log_id}/${row.seq}`, row);
		return Promise.all(
			unconfirmed.map(async (checks) => {
				if (checks === undefined) return false;
				for (const { logId, seq, item } of checks) {
					const row = stored.get(`${logId}/${seq}`);
					if (row === undefined) return false;
					const [type, bytes] = await this.serde.dumpsTyped(item);
					if (type !== row.type || !Buffer.from(bytes).equals(unpack(row.value, row.encoding))) return false;
				}
				return true;
			})
		);
	}
}

function packed(bytes: Uint8Array): { value: Buffer; encoding: number } {
	const { value, encoding } = pack(bytes);
	return { value: Buffer.from(value.buffer, value.byteOffset, value.byteLength), encoding };
}
