/**
 * Pure. A short "how long ago" for the sidebar: "just now", "5 min ago", "3 h ago" within the
 * last day, "Yesterday" for the previous calendar day, the weekday within a week, else the date.
 * `now` is passed in so the label is testable and can be refreshed by a ticking clock.
 */
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

function startOfDay(t: number): number {
	const d = new Date(t);
	d.setHours(0, 0, 0, 0);
	return d.getTime();
}

export function relativeTime(iso: string, now: number, locale?: string): string {
	const then = Date.parse(iso);
	if (Number.isNaN(then)) return '';
	const ago = now - then;
	if (ago < MINUTE) return 'just now';
	if (ago < HOUR) return `${Math.floor(ago / MINUTE)} min ago`;
	const days = Math.round((startOfDay(now) - startOfDay(then)) / DAY);
	if (days <= 0) return `${Math.floor(ago / HOUR)} h ago`;
	if (days === 1) return 'Yesterday';
	if (days < 7) return new Date(then).toLocaleDateString(locale, { weekday: 'short' });
	const sameYear = new Date(then).getFullYear() === new Date(now).getFullYear();
	return new Date(then).toLocaleDateString(locale, { month: 'short', day: 'numeric', ...(sameYear ? {} : { year: 'numeric' }) });
}

/** The full local date and time, for a tooltip. */
export function fullTime(iso: string, locale?: string): string {
	const then = Date.parse(iso);
	return Number.isNaN(then) ? '' : new Date(then).toLocaleString(locale, { dateStyle: 'medium', timeStyle: 'short' });
}
