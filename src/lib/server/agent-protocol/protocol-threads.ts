/**
 * The protocol's threads, which are Sophos's conversations: made, read, patched, searched, counted
 * and deleted through the same storage as Sophos's own API, so each side sees what the other made.
 */
import { randomUUID } from 'node:crypto';
import type { AppStorage } from '../storage/app-storage';
import type { ThreadFilter, ThreadOrder, ThreadRecord } from '../storage/thread-records';
import type { Thread, ThreadStatus } from './protocol-dtos';
import type { ProtocolRefusal } from './protocol-refusal';
import type { ThreadCount, ThreadCreate, ThreadPatch, ThreadSearch, ThreadSortBy } from './request-schemas';
import { runStatusesFor, threadStatusOf } from './thread-status';
import type { ThreadStates } from './thread-states';

export type ProtocolThreadsParts = {
	storage: Pick<AppStorage, 'threads' | 'conversations'>;
	states: Pick<ThreadStates, 'current'>;
	now: () => string;
};

/** Default page of a search, as the SDK's client asks when not told. */
const DEFAULT_LIMIT = 10;

const ORDER_BY: Record<ThreadSortBy, ThreadOrder['by']> = {
	thread_id: 'id',
	status: 'status',
	created_at: 'createdAt',
	updated_at: 'updatedAt',
	// A thread's state changes when a message is written, which is what updatedAt follows.
	state_updated_at: 'updatedAt'
};

function filterOf(query: { metadata?: Record<string, unknown> | null; status?: ThreadStatus | null; ids?: string[] | null }): ThreadFilter {
	return {
		...(query.metadata ? { metadata: query.metadata } : {}),
		...(query.ids ? { ids: query.ids } : {}),
		...(query.status ? { latestRun: runStatusesFor(query.status) } : {})
	};
}

export class ProtocolThreads {
	constructor(private readonly parts: ProtocolThreadsParts) {}

	/** The thread as the protocol shows it: its status and its current values and interrupts. */
	private async toThread(record: ThreadRecord): Promise<Thread> {
		const { conversation, metadata } = record;
		const state = await this.parts.states.current(conversation.id);
		return {
			thread_id: conversation.id,
			created_at: conversation.createdAt,
			updated_at: conversation.updatedAt,
			state_updated_at: state.created_at ?? conversation.updatedAt,
			metadata,
			status: threadStatusOf(conversation.status),
			values: state.values,
			interrupts: Object.fromEntries(state.tasks.filter((t) => t.interrupts.length > 0).map((t) => [t.id, t.interrupts]))
		};
	}

	async get(threadId: string): Promise<Thread | ProtocolRefusal> {
		const record = await this.parts.storage.threads.get(threadId);
		return record ? this.toThread(record) : { refused: 'thread-not-found', threadId };
	}

	/** `if_exists` `raise` (the default) refuses a taken id with THREAD_EXISTS; `do_nothing` answers the thread as it is. */
	async create(body: ThreadCreate): Promise<Thread | ProtocolRefusal> {
		const id = body.thread_id ?? randomUUID();
		const made = await this.parts.storage.threads.create(id, this.parts.now(), body.metadata ?? {});
		if (made === 'exists' && (body.if_exists ?? 'raise') === 'raise') return { refused: 'thread-exists', threadId: id };
		return this.get(id);
	}

	async patch(threadId: string, body: ThreadPatch): Promise<Thread | ProtocolRefusal> {
		if (!(await this.parts.storage.threads.mergeMetadata(threadId, body.metadata ?? {}))) return { refused: 'thread-not-found', threadId };
		return this.get(threadId);
	}

	/** The conversation with everything it holds; refused while a run holds it. */
	async delete(threadId: string): Promise<{ deleted: string } | ProtocolRefusal> {
		const deletion = await this.parts.storage.conversations.delete(threadId);
		if (deletion === 'not-found') return { refused: 'thread-not-found' };
		return deletion === 'running' ? { refused: 'thread-delete-while-running' } : { deleted: threadId };
	}

	/** Newest-updated first unless told otherwise (Sophos's list order), DEFAULT_LIMIT at a time. */
	async search(query: ThreadSearch): Promise<Partial<Thread>[]> {
		const records = await this.parts.storage.threads.search(filterOf(query), {
			order: { by: ORDER_BY[query.sort_by ?? 'updated_at'], direction: query.sort_order ?? 'desc' },
			limit: query.limit ?? DEFAULT_LIMIT,
			offset: query.offset ?? 0
		});
		const threads: Partial<Thread>[] = [];
		for (const record of records) {
			const thread = await this.toThread(record);
			threads.push(query.select ? Object.fromEntries(query.select.map((f) => [f, thread[f]])) : thread);
		}
		return threads;
	}

	count(query: ThreadCount): Promise<number> {
		return this.parts.storage.threads.count(filterOf(query));
	}
}
