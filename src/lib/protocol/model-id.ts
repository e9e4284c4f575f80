/**
 * Pure. A model is named `<provider>/<model>`: the provider is everything before the first slash,
 * so model names that hold slashes themselves (`vllm/Qwen/Qwen3-8B`) stay whole.
 */

export const PROVIDER_NAME = /^[A-Za-z0-9_-]+$/;

export type ModelRef = { provider: string; model: string };

export function parseModelId(id: string): ModelRef | null {
	const slash = id.indexOf('/');
	if (slash <= 0) return null;
	const provider = id.slice(0, slash);
	const model = id.slice(slash + 1);
	return PROVIDER_NAME.test(provider) && model.trim() === model && model !== '' ? { provider, model } : null;
}

export function modelId(ref: ModelRef): string {
	return `${ref.provider}/${ref.model}`;
}
