// How long a caller waits for a store that does not answer. The API runs each request under a deadline
// (lib/api/with-api.ts): a PostgreSQL server that is silent (stopped behind a load balancer, a cut network) then
// costs a request 503 `store_unavailable` within the deadline, as /readyz answers within its own, instead of the
// connect timeout. Background work (the worker's roles) runs without one and waits as before.
//
// The deadline is kept in one AsyncLocalStorage per process (under a global symbol): the web server runs
// several bundles, each with its own copy of this module, and the store is opened by one of them.
import { AsyncLocalStorage } from 'node:async_hooks';

const KEY = Symbol.for('erawatch.store-answer-deadline');
type GlobalWithDeadline = typeof globalThis & { [KEY]?: AsyncLocalStorage<number> };

function storage(): AsyncLocalStorage<number> {
  const g = globalThis as GlobalWithDeadline;
  g[KEY] ??= new AsyncLocalStorage<number>();
  return g[KEY];
}

/** Runs `fn` with store calls that give up once the store has answered nothing for `ms`. */
export function withAnswerDeadline<T>(ms: number, fn: () => T): T {
  return storage().run(ms, fn);
}

/** The deadline of the caller's scope, in ms; null outside one. */
export function answerDeadline(): number | null {
  return storage().getStore() ?? null;
}
