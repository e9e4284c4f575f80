// One LISTEN connection per instance: PostgreSQL notifications handed to subscribers by channel and key.

import pg from 'pg';

/**
 * Every channel Sophos uses; a notification's payload is one key on it: a run id, or for
 * sophos_elicitation_outcome the id of an answer carried to a run's owner.
 */
export const NOTIFY_CHANNELS = [
	'sophos_run_events',
	'sophos_run_cancel',
	'sophos_elicitation_answer',
	'sophos_elicitation_outcome',
	'sophos_run_unfollowed'
] as const;
export type NotifyChannel = (typeof NOTIFY_CHANNELS)[number];

/** PostgreSQL refuses payloads of 8000 bytes and more; keys are ids, far below it. */
const MAX_PAYLOAD_BYTES = 7999;

export interface NotifyListener {
	/** A NOTIFY on the listener's channel and key was committed. */
	notified(): void;
	/**
	 * The bus lost its connection and has it back, LISTENing again: notifications sent in between
	 * are lost, so whatever the listener waits for must be read again.
	 */
	reconnected(): void;
}

export interface NotifyBusOptions {
	/** How the bus connects (the instance's DATABASE_URL); it takes one connection of its own. */
	client: pg.ClientConfig;
	log: (message: string) => void;
	/** Waits between reconnect attempts, doubling from the first to the last (default 100 ms to 5 s). */
	reconnectDelayMs?: { first: number; last: number };
}

type BusState = 'new' | 'starting' | 'listening' | 'reconnecting' | 'closed';

/** Sends `key` on `channel` from any connection: delivered when its transaction commits, in commit order. */
export async function notify(db: pg.Pool | pg.PoolClient | pg.Client, channel: NotifyChannel, key: string): Promise<void> {
	if (Buffer.byteLength(key) > MAX_PAYLOAD_BYTES) throw new Error(`a notification key must be under 8000 bytes (${channel})`);
	await db.query('SELECT pg_notify($1, $2)', [channel, key]);
}

/**
 * The instance's one dedicated LISTEN connection (a pooled one would stop listening when released).
 * After the connection is lost (PostgreSQL restarted, the backend was terminated, the network
 * broke) the bus reconnects with backoff, LISTENs again and then tells every listener
 * `reconnected`. A listener that throws is logged and kept; the others are still told.
 */
export class NotifyBus {
	private state: BusState = 'new';
	private client: pg.Client | null = null;
	private readonly listeners = new Map<string, Set<NotifyListener>>();
	private retry: NodeJS.Timeout | undefined;
	private delayMs: number;
	private readonly delays: { first: number; last: number };

	constructor(private readonly options: NotifyBusOptions) {
		this.delays = options.reconnectDelayMs ?? { first: 100, last: 5_000 };
		this.delayMs = this.delays.first;
	}

	/** Connects and LISTENs on every channel; rejects (and stays closed) if that fails. Once only. */
	async start(): Promise<void> {
		if (this.state !== 'new') throw new Error('the notify bus has already been started');
		this.state = 'starting';
		try {
			await this.connect();
		} catch (error) {
			this.state = 'closed';
			throw error;
		}
		this.state = 'listening';
	}

	/** Listens for `key` on `channel`; returns the unsubscribe. */
	subscribe(channel: NotifyChannel, key: string, listener: NotifyListener): () => void {
		const slot = `${channel}\n${key}`;
		let set = this.listeners.get(slot);
		if (!set) this.listeners.set(slot, (set = new Set()));
		set.add(listener);
		return () => {
			set.delete(listener);
			if (set.size === 0 && this.listeners.get(slot) === set) this.listeners.delete(slot);
		};
	}

	/** Whether the connection is up now; a listener is told `reconnected` after any gap. */
	get isListening(): boolean {
		return this.state === 'listening';
	}

	/** Stops listening and closes the connection; always completes, and a second call does nothing. */
	async close(): Promise<void> {
		if (this.state === 'closed') return;
		this.state = 'closed';
		clearTimeout(this.retry);
		const client = this.client;
		this.client = null;
		await client?.end().catch(() => {});
	}

	private async connect(): Promise<void> {
		// Keep-alive probes find a connection whose peer vanished without closing it, which an idle
		// LISTEN connection would otherwise never notice.
		const client = new pg.Client({ keepAlive: true, keepAliveInitialDelayMillis: 10_000, ...this.options.client });
		client.on('error', (error) => this.options.log(`Notify bus: connection error (${error.message})`));
		client.on('notification', (message) => this.dispatch(message.channel, message.payload));
		try {
			await client.connect();
			for (const channel of NOTIFY_CHANNELS) await client.query(`LISTEN ${channel}`);
		} catch (error) {
			await client.end().catch(() => {});
			throw error;
		}
		client.once('end', () => this.lost(client));
		if (this.state === 'closed') {
			await client.end().catch(() => {});
			return;
		}
		this.client = client;
	}

	private lost(client: pg.Client): void {
		if (this.client !== client || this.state === 'closed') return;
		this.client = null;
		this.state = 'reconnecting';
		this.options.log('Notify bus: connection lost; reconnecting');
		this.scheduleReconnect(0);
	}

	private scheduleReconnect(delayMs: number): void {
		this.retry = setTimeout(() => void this.reconnect(), delayMs);
		this.retry.unref();
	}

	private async reconnect(): Promise<void> {
		try {
			await this.connect();
		} catch (error) {
			if (this.state === 'closed') return;
			this.options.log(`Notify bus: reconnect failed (${(error as Error).message}); trying again in ${this.delayMs} ms`);
			this.scheduleReconnect(this.delayMs);
			this.delayMs = Math.min(this.delayMs * 2, this.delays.last);
			return;
		}
		if (this.state === 'closed') return;
		this.state = 'listening';
		this.delayMs = this.delays.first;
		this.options.log('Notify bus: reconnected');
		for (const set of [...this.listeners.values()]) for (const listener of [...set]) this.tell(listener, 'reconnected');
	}

	private dispatch(channel: string, key: string | undefined): void {
		const set = this.listeners.get(`${channel}\n${key ?? ''}`);
		if (set) for (const listener of [...set]) this.tell(listener, 'notified');
	}

	private tell(listener: NotifyListener, what: 'notified' | 'reconnected'): void {
		try {
			listener[what]();
		} catch (error) {
			this.options.log(`Notify bus: a listener failed on ${what} (${(error as Error).message})`);
		}
	}
}
