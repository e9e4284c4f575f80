// Deterministic prose for storage benchmarks: sentences of pseudo-words whose frequencies follow
// Zipf's law, as a language's do. Tuned so a 300-word answer is about as long as English (≈ 5.7
// bytes a word, 1.7 kB) and deflates about as well (to ≈ 53% alone, as 1.8 kB slices of this
// repository's README do): a text of a few repeated words would flatter any compressing store.

const SYLLABLES = (
	'ka to ri en mo sa ul ve na di or pe lu ta in co ma re si ho an te lo be fu ar ne mi da so ' +
	'el wu ro gi ya ce pa vo le ti ur ba st th ng ck sh ou ea io ght pr bl er es ed al it'
).split(' ');
const VOCABULARY_SIZE = 5000;

function random(seed: number): () => number {
	let state = seed >>> 0 || 1;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = Math.imul(state ^ (state >>> 15), 1 | state);
		t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const vocabulary = (() => {
	const next = random(7);
	const words = new Set<string>();
	while (words.size < VOCABULARY_SIZE) {
		const syllables = 1 + Math.floor(next() * 5.6);
		let word = '';
		for (let i = 0; i < syllables; i += 1) word += SYLLABLES[Math.floor(next() * SYLLABLES.length)];
		words.add(word);
	}
	// Frequent words tend to be short, as in English, but not strictly.
	const keyed = [...words].map((word) => ({ word, key: word.length + next() * 10 }));
	return keyed.sort((a, b) => a.key - b.key).map(({ word }) => word);
})();

// Cumulative Zipf–Mandelbrot weights: the word of rank r (from 1) is drawn with probability
// ∝ 1 / (r + 1.7), the fit usually quoted for English.
const cumulative = (() => {
	let total = 0;
	const sums = vocabulary.map((_, rank) => (total += 1 / (rank + 2.7)));
	return sums.map((sum) => sum / total);
})();

function drawWord(next: () => number): string {
	const x = next();
	let low = 0;
	let high = cumulative.length - 1;
	while (low < high) {
		const mid = (low + high) >> 1;
		if (cumulative[mid]! < x) low = mid + 1;
		else high = mid;
	}
	return vocabulary[low]!;
}

/** `words` words of sentences (8–20 words, some commas), the same for the same seed. */
export function prose(seed: number, words: number): string {
	const next = random(seed);
	const sentences: string[] = [];
	let left = words;
	while (left > 0) {
		const length = Math.min(left, 8 + Math.floor(next() * 13));
		const parts: string[] = [];
		for (let i = 0; i < length; i += 1) parts.push(drawWord(next) + (i < length - 1 && next() < 0.07 ? ',' : ''));
		const sentence = parts.join(' ');
		sentences.push(sentence[0]!.toUpperCase() + sentence.slice(1) + '.');
		left -= length;
	}
	return sentences.join(' ');
}
