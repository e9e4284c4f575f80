import type { ApprovalStorage } from '../storage/approval-storage';
import type { RunService } from './run-service';
import { isRefusal } from './run-refusal';

/** setTimeout's longest delay; a later expiry is re-armed from there. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export const NOT_APPROVED_IN_TIME = 'not approved in time';

/**
 * APPROVAL_TIMEOUT_MS: a call nobody decided in time is denied ("not approved in time") and the
 * model answers, through the same decision path a person uses. One timer, for the next expiry;
 * `schedule()` is called at start and after every run, since only a run can add a waiting call.
 */
export class ApprovalExpiry {
	private timer: NodeJS.Timeout | undefined;
	private closed = false;

	constructor(
		private readonly parts: {
			approvals: ApprovalStorage;
			runService: Pick<RunService, 'start'>;
			now: () => string;
			log: (line: string, error?: unknown) => void;
		}
	) {}

	/** Resolves once the timer is set; errors reading the next expiry are logged. */
	async schedule(): Promise<void> {
		let next: string | null;
		try {
			next = await this.parts.approvals.nextExpiryAt();
		} catch (e) {
			this.parts.log('Reading the next approval expiry failed', e);
			return;
		}
		clearTimeout(this.timer);
		if (this.closed || next === null) return;
		const delay = Math.min(MAX_TIMER_MS, Math.max(0, Date.parse(next) - Date.parse(this.parts.now())));
		this.timer = setTimeout(() => this.expire().catch((e) => this.parts.log('Expiring approvals failed', e)), delay);
		this.timer.unref();
	}

	close(): void {
		this.closed = true;
		clearTimeout(this.timer);
	}

	private async expire(): Promise<void> {
		const { approvals, runService, now, log } = this.parts;
		for (const conversation of await approvals.expiredThreads(now())) {
			const decisions = (await approvals.pending(conversation)).map((p) => ({
				toolCallId: p.toolCallId,
				action: 'deny' as const,
				reason: NOT_APPROVED_IN_TIME
			}));
			let started;
			try {
				started = await runService.start({ kind: 'decide', conversation, decisions });
			} catch (e) {
				log(`Approval timeout of ${conversation} left to the run that holds it`, e);
				continue;
			}
			// No room under MAX_CONCURRENT_RUNS: the end of a run frees one and schedules this again.
			if (isRefusal(started) && started.refused === 'full') return;
			// A run holds the conversation: a new message, which closes the calls itself.
			if (isRefusal(started)) log(`Approval timeout of ${conversation} left to the run that holds it (${started.refused})`);
		}
		await this.schedule();
	}
}
