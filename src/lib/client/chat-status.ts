/**
 * Pure. What the chat page is doing, as a closed union with its legal transitions.
 *
 *   idle ──send/resume/decide──▶ sending ──200──▶ streaming ──terminal event──▶ idle
 *     │                             └──refused──▶ idle (error shown, input restored)
 *     ├──select──▶ loading ──detail──▶ idle, or streaming when the run is live
 *     └──follow (attach)──▶ streaming ──Stop──▶ stopping ──cancelled / detached──▶ idle
 *
 * `decide` submits the decisions on the calls a conversation waits on (it is idle while it waits:
 * the run that paused has ended `waiting`); the run that carries them out is followed like any.
 *
 * Selecting another conversation or starting a new chat is legal from every state: it abandons
 * whatever was in flight (stale answers are dropped by the controller's navigation epoch).
 */
export type ChatStatus = 'idle' | 'loading' | 'sending' | 'streaming' | 'stopping';

const TRANSITIONS: Record<ChatStatus, readonly ChatStatus[]> = {
	idle: ['loading', 'sending', 'streaming'],
	loading: ['idle', 'loading', 'streaming'],
	sending: ['idle', 'loading', 'streaming'],
	streaming: ['idle', 'loading', 'stopping'],
	stopping: ['idle', 'loading', 'streaming']
};

export class IllegalTransitionError extends Error {
	override name = 'IllegalTransitionError';
	constructor(
		readonly from: ChatStatus,
		readonly to: ChatStatus
	) {
		super(`Illegal chat status transition: ${from} → ${to}`);
	}
}

export function canTransition(from: ChatStatus, to: ChatStatus): boolean {
	return TRANSITIONS[from].includes(to);
}

/** Returns `to`, or throws when the move is not one of the documented edges. */
export function transition(from: ChatStatus, to: ChatStatus): ChatStatus {
	if (!canTransition(from, to)) throw new IllegalTransitionError(from, to);
	return to;
}

/** A run is on screen and being followed. */
export function isBusy(status: ChatStatus): boolean {
	return status === 'sending' || status === 'streaming' || status === 'stopping';
}
