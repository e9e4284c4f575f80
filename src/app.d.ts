import type { Refusal } from '$lib/server/http/request-guard';

declare global {
	namespace App {
		interface Locals {
			/** Checks the token the page's prompt posts (POST /api/session), throttled like every check. */
			signIn: (token: string) => Refusal | { setCookie: string };
		}
	}
}
export {};
