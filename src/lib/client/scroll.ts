/** Pure. Whether a scroll container is close enough to its end to keep following new output. */
export function isNearBottom(el: { scrollTop: number; scrollHeight: number; clientHeight: number }, slack = 48): boolean {
	return el.scrollHeight - el.scrollTop - el.clientHeight <= slack;
}
