import type { BaseCheckpointSaver } from '@langchain/langgraph';

/**
 * Crash injection for the crash-matrix tests: SOPHOS_CRASH_AT=<point>[:<n>] kills the process with
 * SIGKILL the n-th time (default 1) execution reaches the named point, as a power cut would.
 */
export const CRASH_POINTS = [
	'after-run-insert',
	'after-decision',
	'mid-model-stream',
	'before-tool-call',
	'after-tool-side-effect',
	'before-checkpoint',
	'after-final-checkpoint',
	'before-finish-run',
	// npm run migrate, once a thread's checkpoints are copied (the killed-and-resumed migration test).
	'after-migrated-thread'
] as const;

export type CrashPoint = (typeof CRASH_POINTS)[number];
export type CrashAt = { point: CrashPoint; n: number };
export type CrashInjector = (point: CrashPoint) => void;

export function parseCrashAt(value: string): CrashAt | null {
	const [point, n = '1'] = value.split(':');
	if (!CRASH_POINTS.includes(point as CrashPoint) || !/^[1-9]\d*$/.test(n)) return null;
	return { point: point as CrashPoint, n: Number(n) };
}

export function createCrashInjector(at: CrashAt | undefined): CrashInjector {
	if (!at) return () => {};
	let hits = 0;
	return (point) => {
		if (point === at.point && ++hits === at.n) process.kill(process.pid, 'SIGKILL');
	};
}

/** Makes `before-checkpoint` reachable: the saver is LangGraph's, so its `put` is wrapped. */
export function crashBeforeCheckpoint<T extends BaseCheckpointSaver>(saver: T, crash: CrashInjector): T {
	const put = saver.put.bind(saver);
	saver.put = (...args) => {
		crash('before-checkpoint');
		return put(...args);
	};
	return saver;
}
