import type { RunTrigger } from '../../protocol';
import type { Toolbox } from '../mcp/toolbox';
import type { AppStorage } from '../storage/app-storage';
import { danglingToolCalls } from './dangling-tool-calls';
import { readThreadWork, type ThreadWorkSources } from './read-thread-work';
import type { RecoveredRun } from './run-recovery';
import { isRefusal } from './run-refusal';
import type { RunService } from './run-service';
import { stepsToResume } from './thread-work';

/** Auto-resume (AUTO_RESUME=true): which interrupted threads are resumed, and resuming them. */

export type PendingCall = { recorded: boolean; safeToRepeat: boolean };

/**
 * Pure. Only a pending step that is safe to repeat: a model call (no side effects), or tool calls
 * each of which either has a recorded outcome or may be repeated. `recentTriggers` are the thread's
 * runs, newest first: auto-resumes in a row beyond `max` mean the thread keeps dying, so it waits
 * for a person.
 */
export function shouldAutoResume(input: {
	pending: string[];
	openCalls: PendingCall[];
	recentTriggers: RunTrigger[];
	max: number;
}): boolean {
	if (input.pending.length === 0) return false;
	const inARow = input.recentTriggers.findIndex((t) => t !== 'auto-resume');
	if ((inARow === -1 ? input.recentTriggers.length : inARow) >= input.max) return false;
	if (input.pending.every((n) => n === 'agent')) return true;
	return input.pending.every((n) => n === 'agent' || n === 'tools') && input.openCalls.every((c) => c.recorded || c.safeToRepeat);
}

export type AutoResumeParts = ThreadWorkSources & {
	storage: Pick<AppStorage, 'journal'>;
	runService: Pick<RunService, 'start'>;
	toolbox: Pick<Toolbox, 'resolve'>;
	/** AUTO_RESUME_MAX */
	max: number;
	log: (line: string, error?: unknown) => void;
};

/**
 * Resumes an interrupted run's thread if `shouldAutoResume` allows it, the resumed run carrying on
 * the run's stream (RunService `carriesOn`). True when it was resumed. A thread that fails to resume
 * is logged and stays interrupted: one bad thread must not keep the service from starting.
 */
export async function autoResume(run: RecoveredRun, parts: AutoResumeParts): Promise<boolean> {
	const id = run.conversationId;
	const open = danglingToolCalls(await parts.threads.messages(id));
	const openCalls: PendingCall[] = [];
	for (const c of open) {
		openCalls.push({
			recorded: (await parts.storage.journal.get(id, c.id))?.outcome != null,
			safeToRepeat: parts.toolbox.resolve(c.name)?.safeToRepeat ?? false
		});
	}
	const resume = shouldAutoResume({
		pending: stepsToResume(await readThreadWork(parts, id)),
		openCalls,
		recentTriggers: (await parts.storage.runs.list(id)).map((r) => r.trigger),
		max: parts.max
	});
	if (!resume) return false;
	try {
		const started = await parts.runService.start({ kind: 'resume', conversation: id, trigger: 'auto-resume', carriesOn: run });
		if (isRefusal(started)) {
			parts.log(`Auto-resume of ${id} refused (${started.refused}); it stays interrupted`);
			return false;
		}
		if ('run' in started) parts.log(`Auto-resume: run ${run.id} resumed as run ${started.run}`);
		return true;
	} catch (e) {
		parts.log(`Auto-resume of ${id} failed; it stays interrupted`, e);
		return false;
	}
}
