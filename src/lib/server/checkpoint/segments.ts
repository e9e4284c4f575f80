// How an array channel value (e.g. `messages`) is laid out in item logs.
//
// A log is an append-only sequence of serialised items owned by one thread. A checkpoint's array
// value is a short list of segments, each "the first N items of log L". A turn that only appends
// adds its suffix to the log its parent ends in, so storage is linear in history instead of
// quadratic (the stock saver re-stores the whole array at every checkpoint).
//
// Pure functions only: the saver decides *whether* the child extends the parent (identity or
// serialised equality) and this module decides *where* the new items go.

/** Default bound on segments per value (the saver's `maxSegments`). */
export const DEFAULT_MAX_SEGMENTS = 16;

/** The first `length` items of log `logId` (items 0 .. length-1). */
export type Segment = readonly [logId: number, length: number];

export type LogPlan =
	/** No new items: the child's value is exactly the parent's. */
	| { kind: 'reuse' }
	/** The parent ends at the tip of its last log: append the suffix there. */
	| { kind: 'append'; logId: number; from: number }
	/** The parent's last log has grown past it (a fork): start a new log for the suffix. */
	| { kind: 'branch' }
	/** Not an extension (e.g. after RemoveMessage), or too many segments: store the whole value. */
	| { kind: 'copy' };

export interface LogPlanInput {
	/** The parent's segments for this channel, if the parent held it as a log. */
	parentSegments?: readonly Segment[];
	/** Whether the parent's items are a prefix of the child's (checked by the caller). */
	extendsParent: boolean;
	childLength: number;
	/** Current length of the parent's last log (how far any branch has appended to it). */
	tipLength?: number;
	/** Upper bound on segments per value, so reading any checkpoint stays bounded. */
	maxSegments: number;
}

export function totalLength(segments: readonly Segment[]): number {
	let n = 0;
	for (const [, length] of segments) n += length;
	return n;
}

export function planLogWrite(input: LogPlanInput): LogPlan {
	const { parentSegments, extendsParent, childLength, tipLength, maxSegments } = input;
	if (parentSegments === undefined || !extendsParent) return { kind: 'copy' };
	const parentLength = totalLength(parentSegments);
	if (childLength < parentLength) return { kind: 'copy' };
	if (childLength === parentLength) return { kind: 'reuse' };
	const last = parentSegments[parentSegments.length - 1];
	if (last !== undefined && tipLength === last[1]) return { kind: 'append', logId: last[0], from: last[1] };
	return parentSegments.length < maxSegments ? { kind: 'branch' } : { kind: 'copy' };
}

/**
 * The child's segments once the plan is carried out. `newLogId` is the log created for
 * `branch` and `copy` (ignored otherwise).
 */
export function segmentsAfter(
	plan: LogPlan,
	parentSegments: readonly Segment[] | undefined,
	childLength: number,
	newLogId?: number
): Segment[] {
	const parent = parentSegments ?? [];
	switch (plan.kind) {
		case 'reuse':
			return [...parent];
		case 'append':
			return [...parent.slice(0, -1), [plan.logId, childLength - totalLength(parent.slice(0, -1))]];
		case 'branch':
			return [...parent, [requireLog(newLogId), childLength - totalLength(parent)]];
		case 'copy':
			return childLength === 0 ? [] : [[requireLog(newLogId), childLength]];
	}
}

/** Items of the child that must be written for the plan, as a [start, end) range of the child. */
export function itemsToWrite(plan: LogPlan, parentSegments: readonly Segment[] | undefined, childLength: number) {
	const parentLength = parentSegments === undefined ? 0 : totalLength(parentSegments);
	switch (plan.kind) {
		case 'reuse':
			return { start: childLength, end: childLength };
		case 'append':
		case 'branch':
			return { start: parentLength, end: childLength };
		case 'copy':
			return { start: 0, end: childLength };
	}
}

/** Whether a plan needs a new log (an empty copy needs none). */
export function needsNewLog(plan: LogPlan, childLength: number): boolean {
	return plan.kind === 'branch' || (plan.kind === 'copy' && childLength > 0);
}

function requireLog(logId: number | undefined): number {
	if (logId === undefined) throw new Error('checkpoint store: a new log id is required for this plan');
	return logId;
}

export interface AppliedLogWrite {
	channel: string;
	segments: Segment[];
	/** Where the items went, for the cache and for write links. */
	logId?: number;
	from: number;
	objects: unknown[];
	bytes: Uint8Array[];
	type?: string;
}
