import type { IncomingMessage } from 'node:http';
import type { Refusal } from '$lib/server/http/request-guard';

declare global {
	namespace App {
		interface Locals {
			/** Checks the token the page's prompt posts (POST /api/session), throttled like every check. */
			signIn: (token: string) => Promise<Refusal | { setCookies: string[] }>;
			/** Ends the sessions the request's cookies name (DELETE /api/session). */
			signOut: () => Promise<{ setCookies: string[] }>;
		}
		/** adapter-node's: the request as Node read it, whose raw headers show duplicates. */
		interface Platform {
			req: IncomingMessage;
		}
	}
}
export {};
