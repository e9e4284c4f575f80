/**
 * The thin Svelte binding: holds the controller's latest snapshot in `$state.raw` and derives the
 * view from it. Snapshots are taken at most once per task, so a replay of many events (a reload
 * mid-run) renders once instead of once per event.
 */
import { AllowedToolsList, type AllowedToolsSnapshot } from './allowed-tools';
import { ChatController } from './chat-controller';
import type { ChatSnapshot } from './chat-snapshot';
import { chatView, type ChatView } from './chat-view';
import { httpChatApi } from './chat-api';
import { eventSourceRunStream } from './run-stream';

const CLOCK_MS = 30_000;

export class Chat {
	readonly controller: ChatController;
	readonly allowedTools: AllowedToolsList;
	snapshot: ChatSnapshot;
	allowed: AllowedToolsSnapshot;
	readonly view: ChatView;
	/** Ticks so relative times ("5 min ago") stay true. */
	now = $state(Date.now());
	private scheduled = false;

	constructor(controller?: ChatController) {
		const api = httpChatApi();
		this.controller = controller ?? new ChatController({ api, openStream: eventSourceRunStream });
		this.allowedTools = new AllowedToolsList(api);
		this.snapshot = $state.raw(this.controller.snapshot);
		this.allowed = $state.raw(this.allowedTools.snapshot);
		this.allowedTools.subscribe((s) => (this.allowed = s));
		this.view = $derived(chatView(this.snapshot));
		this.controller.subscribe(() => {
			if (this.scheduled) return;
			this.scheduled = true;
			setTimeout(() => {
				this.scheduled = false;
				this.snapshot = this.controller.snapshot;
			}, 0);
		});
	}

	/** Starts loading; returns the teardown for the component's `onMount`. */
	mount(preferred: string | null): () => void {
		void this.controller.start(preferred);
		const clock = setInterval(() => (this.now = Date.now()), CLOCK_MS);
		const recheck = () => {
			if (this.snapshot.readiness?.status === 'error') void this.controller.checkReadiness();
		};
		window.addEventListener('focus', recheck);
		return () => {
			clearInterval(clock);
			window.removeEventListener('focus', recheck);
			this.controller.dispose();
		};
	}
}
