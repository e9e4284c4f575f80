import { describe, expect, it } from 'vitest';
import { robotsUrlFor, robotsVerdict } from '../../../servers/fetch/robots.js';

const UA = 'Sophos-Fetch/1.0 (Autonomous; +local agent)';
const page = new URL('https://site.example:8443/private/report?id=1');
const ok = (text: string) => ({ status: 200, text });

describe('robots.txt', () => {
	it('lives at the root of the same origin', () => {
		expect(robotsUrlFor(page).href).toBe('https://site.example:8443/robots.txt');
	});

	it('allows what no rule forbids', () => {
		expect(robotsVerdict(page, ok(''), UA)).toBeUndefined();
		expect(robotsVerdict(page, ok('User-agent: *\nDisallow: /admin\n'), UA)).toBeUndefined();
		expect(robotsVerdict(page, ok('User-agent: *\nDisallow: /\nAllow: /private/\n'), UA)).toBeUndefined();
	});

	it('refuses a disallowed path, naming robots.txt and the rule', () => {
		expect(robotsVerdict(page, ok('# comment\nUser-agent: *\nDisallow: /private\n'), UA)).toBe(
			`Blocked by robots.txt: https://site.example:8443/robots.txt does not allow ${UA} to fetch ${page.href} ` +
				'(rule: "Disallow: /private"). The assistant must let the user know that it failed to view the page.'
		);
	});

	it('follows a group written for Sophos-Fetch over the wildcard group', () => {
		const rules = 'User-agent: *\nAllow: /\n\nUser-agent: Sophos-Fetch\nDisallow: /private/\n';
		expect(robotsVerdict(page, ok(rules), UA)).toContain('Blocked by robots.txt');
		expect(robotsVerdict(page, ok('User-agent: OtherBot\nDisallow: /\n'), UA)).toBeUndefined();
	});

	it('treats 401 and 403 as a refusal and other 4xx as no rules, like the official server', () => {
		for (const status of [401, 403]) {
			expect(robotsVerdict(page, { status, text: '' }, UA)).toBe(
				`When fetching robots.txt (https://site.example:8443/robots.txt), received status ${status} so assuming ` +
					'that autonomous fetching is not allowed. The assistant must let the user know that it failed to view the page.'
			);
		}
		for (const status of [400, 404, 410, 429]) expect(robotsVerdict(page, { status, text: '' }, UA)).toBeUndefined();
	});

	it('treats a server error as "everything disallowed" (RFC 9309)', () => {
		expect(robotsVerdict(page, { status: 503, text: '' }, UA)).toContain('received status 503 so assuming');
	});
});
