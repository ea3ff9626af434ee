// The idle RSS of the same node binary with nothing of Noema imported, measured like
// `noema-rss.mjs` (after 200 ms idle and a full collection): the floor the first-start figure sits on.
import { memory } from './rss-memory.mjs';

await new Promise((r) => setTimeout(r, 200));
globalThis.gc?.();
console.log(JSON.stringify(memory()));
