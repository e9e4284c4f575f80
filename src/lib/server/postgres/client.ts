// pg's Client for the instance's pool, so that every failure to open a connection says by its code
// or type that the database cannot be reached (storage/database-errors.ts).

import pg from 'pg';
import { DatabaseConnectError } from '../storage/database-errors';

type ConnectCallback = (err: Error | null, client?: pg.Client) => void;

/**
 * A connect that fails with a code (a socket errno, a SQLSTATE such as refused credentials) fails
 * with that error. One without (pg's own connect timeout, a server that closed the socket before
 * it answered) fails with a DatabaseConnectError around it.
 */
export class PostgresClient extends pg.Client {
	override connect(): Promise<pg.Client>;
	override connect(callback: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): void;
	override connect(callback?: ((err: Error) => void) | ((err: null, c: pg.Client) => void)): Promise<pg.Client> | void {
		const opened = this.open();
		if (!callback) return opened;
		const done = callback as ConnectCallback;
		opened.then(
			(client) => done(null, client),
			(error: Error) => done(error)
		);
	}

	private async open(): Promise<pg.Client> {
		try {
			return await super.connect();
		} catch (e) {
			if (typeof (e as { code?: unknown }).code === 'string') throw e;
			throw new DatabaseConnectError((e as Error).message, { cause: e });
		}
	}
}
