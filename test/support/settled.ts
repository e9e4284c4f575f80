/** Whether `promise` has settled once everything already queued (microtasks, this turn's I/O callbacks) has run. */
export async function hasSettled(promise: Promise<unknown>): Promise<boolean> {
	let settled = false;
	void promise.then(
		() => (settled = true),
		() => (settled = true)
	);
	await new Promise((resolve) => setImmediate(resolve));
	return settled;
}
