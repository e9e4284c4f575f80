import adapter from '@sveltejs/adapter-node';
import { vitePreprocess } from '@sveltejs/vite-plugin-svelte';

/** @type {import('@sveltejs/kit').Config} */
export default {
	preprocess: vitePreprocess(),
	kit: {
		adapter: adapter({ out: 'build' }),
		// `npm run check` covers the fetch server and the benchmarks too, not only the app and tests.
		typescript: {
			config: (config) => {
				config.include.push('../servers/**/*.ts', '../bench/**/*.ts');
			}
		},
		// The page shows untrusted model and tool output. The Markdown sanitiser is the guard; this is
		// the second line: nothing is loaded from, or sent to, another origin, and no script runs but
		// the app's own (SvelteKit adds a nonce to its inline start-up script).
		csp: {
			mode: 'auto',
			directives: {
				'default-src': ['self'],
				'script-src': ['self'],
				'style-src': ['self', 'unsafe-inline'],
				'img-src': ['self'],
				'font-src': ['self'],
				'connect-src': ['self'],
				'media-src': ['none'],
				'object-src': ['none'],
				'frame-src': ['none'],
				'frame-ancestors': ['none'],
				'base-uri': ['none'],
				'form-action': ['self']
			}
		}
	}
};
