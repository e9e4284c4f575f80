/**
 * The "Always allowed tools" list: the tools a person told an approval card to always allow
 * (GET /api/allowed-tools), read each time the list opens, since any tab may add one, and revoked
 * one at a time (DELETE /api/allowed-tools/<tool>), after which the tool asks again.
 */
import type { ChatApi } from './chat-api';
import { SnapshotStore } from './snapshot-store';
import type { AllowedTool, WireError } from '../protocol';

export type AllowedToolsSnapshot = {
	state: 'idle' | 'loading' | 'ready' | 'error';
	tools: AllowedTool[];
	/** The tool whose revoke is in flight. */
	revoking: string | null;
	error: WireError | null;
};

const INITIAL: AllowedToolsSnapshot = { state: 'idle', tools: [], revoking: null, error: null };

export class AllowedToolsList extends SnapshotStore<AllowedToolsSnapshot> {
	private request = 0;

	constructor(private readonly api: Pick<ChatApi, 'listAllowedTools' | 'revokeAllowedTool'>) {
		super(INITIAL);
	}

	async load(): Promise<void> {
		const request = ++this.request;
		this.set({ state: this.state.state === 'ready' ? 'ready' : 'loading', error: null });
		const res = await this.api.listAllowedTools();
		if (request !== this.request) return;
		this.set(res.ok ? { state: 'ready', tools: res.value } : { state: 'error', error: res.error });
	}

	/** Revokes one tool. A 404 means it was revoked already (another tab): it leaves the list too. */
	async revoke(tool: string): Promise<void> {
		if (this.state.revoking) return;
		this.set({ revoking: tool, error: null });
		const res = await this.api.revokeAllowedTool(tool);
		this.set({ revoking: null });
		if (!res.ok && res.status !== 404) {
			this.set({ error: res.error });
			return;
		}
		// A list read while the revoke was in flight may still hold the tool: this answer is newer.
		this.request++;
		this.set({ tools: this.state.tools.filter((t) => t.tool !== tool) });
	}
}
