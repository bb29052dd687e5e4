// The open write transaction of the current async context, for re-entrant `store.write`.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface WriteScope<T> {
  /** The transaction the caller runs inside, if any. */
  current(): T | undefined;
  /** Runs `fn` with `value` as the current transaction of everything it awaits. */
  run<R>(value: T, fn: () => Promise<R>): Promise<R>;
}

/**
 * On Node 20 an enabled AsyncLocalStorage hooks every promise of the process (the probes' too, about twice
 * the cost of a bare await), so the scope is enabled only while one of its transactions is open.
 */
export function createWriteScope<T>(): WriteScope<T> {
  const storage = new AsyncLocalStorage<T>();
  let open = 0;
  return {
    current: () => (open > 0 ? storage.getStore() : undefined),
    async run(value, fn) {
      open += 1;
      try {
        return await storage.run(value, fn);
      } finally {
        open -= 1;
        if (open === 0) storage.disable();
      }
    },
  };
}
