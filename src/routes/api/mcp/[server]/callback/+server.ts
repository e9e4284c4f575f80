import type { RequestHandler } from './$types';
import { z } from 'zod';
import { runtime } from '$lib/server/runtime-instance';
import { toApiError } from '$lib/server/http/api-error';
import { unlessRefused } from '$lib/server/http/run-refusal-error';
import { signInPage } from '$lib/server/http/sign-in-page';
import { redactor } from '$lib/server/secrets/redactor';

/** One value each, as an authorization server sends them; anything repeated or overlong is refused. */
const CallbackQuerySchema = z.object({
	state: z.string().max(512).optional(),
	code: z.string().max(4096).optional(),
	error: z.string().max(256).optional(),
	error_description: z.string().max(1024).optional()
});

function single(url: URL): Record<string, string> | null {
	const out: Record<string, string> = {};
	for (const key of url.searchParams.keys()) {
		const values = url.searchParams.getAll(key);
		if (values.length > 1) return null;
		out[key] = values[0]!;
	}
	return out;
}

/** The authorization server's redirect back: a page for the person, whatever happened. */
export const GET: RequestHandler = async ({ params, url }) => {
	const server = params.server;
	const query = CallbackQuerySchema.safeParse(single(url));
	if (!query.success) return signInPage(400, 'Sign-in failed', 'The authorization server sent a callback Sophos cannot read. Nothing was changed.');
	try {
		const outcome = unlessRefused(
			await runtime().mcpSignIn.complete(server, {
				state: query.data.state,
				code: query.data.code,
				error: query.data.error,
				errorDescription: query.data.error_description
			})
		);
		switch (outcome.kind) {
			case 'signed-in':
				return signInPage(200, `Signed in to ${server}`, `Sophos is signed in to "${server}" (${outcome.tools ?? 0} tools).`);
			case 'unknown-state':
				return signInPage(
					400,
					'Sign-in not recognised',
					`This callback matches no sign-in to "${server}" under way: it was already used, it expired, or it was not begun here. Nothing was changed; start the sign-in again from Sophos.`
				);
			case 'refused':
				return signInPage(
					400,
					'Sign-in refused',
					`The authorization server of "${server}" answered ${outcome.error}${outcome.description ? `: ${outcome.description}` : ''}. Nothing was changed.`
				);
			case 'exchange-failed':
				return signInPage(502, 'Sign-in failed', redactor.redact(`The authorization server of "${server}" did not give a token: ${outcome.message}. Nothing was changed.`));
		}
	} catch (e) {
		const error = toApiError(e);
		return signInPage(error.status, 'Sign-in failed', redactor.redact(error.message));
	}
};
