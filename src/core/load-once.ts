/**
 * What a process loads when it first needs it (a module, an SDK), once: `loadOnce(load)` returns a
 * function whose first call starts `load` and whose later calls share its promise. A failed load is
 * forgotten, so the next call tries again instead of failing forever.
 */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () => {
    loading ??= load().catch((err: unknown) => {
      loading = undefined;
      throw err;
    });
    return loading;
  };
}

/**
 * Resolves on the next turn of the event loop. A long load split into steps awaiting it between them
 * lets timers (lease renewals, heartbeats) run between the steps instead of after the whole load.
 */
export function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
