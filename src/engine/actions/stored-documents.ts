/**
 * The stored documents a source-backed contract names (its response source, its result schema),
 * kept per executor: they are content-addressed and never change, so a cached one cannot be stale,
 * and a turn of many calls to the same few sources reads each once instead of once per call.
 */
import type { StoredResponseSource, StoredSchema } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';

/** The sources layer, loaded on first use (see sources-executor.ts: it keeps ~30 MB off the engine). */
type SourcesLayer = typeof import('../../sources/index.ts');

/** Documents kept per kind; the oldest goes first past it (sources and schemas are few and small). */
const KEPT = 256;

export class StoredDocuments {
  readonly #store: Store;
  readonly #layer: () => Promise<SourcesLayer>;
  readonly #sources = new Map<string, Promise<StoredResponseSource>>();
  readonly #schemas = new Map<string, Promise<StoredSchema>>();

  constructor(store: Store, layer: () => Promise<SourcesLayer>) {
    this.#store = store;
    this.#layer = layer;
  }

  source(hash: string): Promise<StoredResponseSource> {
    return cached(this.#sources, hash, async () =>
      (await this.#layer()).getResponseSource(this.#store, hash),
    );
  }

  schema(hash: string): Promise<StoredSchema> {
    return cached(this.#schemas, hash, async () => (await this.#layer()).getJsonSchema(this.#store, hash));
  }
}

function cached<T>(map: Map<string, Promise<T>>, hash: string, load: () => Promise<T>): Promise<T> {
  let p = map.get(hash);
  if (!p) {
    p = load();
    // A failed read (unknown hash, store down) is not remembered: the next call reads again.
    p.catch(() => map.delete(hash));
    map.set(hash, p);
    if (map.size > KEPT) map.delete(map.keys().next().value!);
  }
  return p;
}
