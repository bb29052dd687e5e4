// A transaction whose PostgreSQL session is lost mid-way (the server ended it: idle_in_transaction_session_timeout,
// pg_terminate_backend, a restart or fail-over; or the network cut it) fails with the reason and sends nothing more.
//
// postgres 3.4.9 (the latest release) answers such a loss by writing to a socket it has already dropped: the
// ROLLBACK that `begin` sends when its callback fails, and any statement the callback sends after the loss, are
// queued for a setImmediate that dereferences the dropped socket and throws outside any promise, which ends the
// process (porsager/postgres#1154, #1208). A statement sent after the driver has reconnected would instead run on
// a new session, outside the transaction. So a transaction callback that fails because its session is gone does
// not fail back into the driver: it stays pending (the driver's own `begin` rejects once the socket closes, and
// the callback's promise is then dropped), and every statement it sends afterwards is refused before it reaches
// the driver. The caller sees the first error that told of the loss (the server's reason, where it sent one).

/** How long a callback that lost its session waits for the driver to notice the closed socket before failing. */
const LOSS_GRACE_MS = 60_000;

/** Driver and socket error codes after which the session's socket is closed, or about to be. */
const SESSION_LOST_CODES = new Set(['CONNECTION_CLOSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * True when `err` (or an error it wraps, as drizzle wraps the driver's) says the session is gone: a socket-level
 * failure, or a FATAL or PANIC error from the server, which closes the session after sending it.
 */
export function sessionLost(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e !== null && typeof e === 'object'; depth++) {
    const { code, severity, cause } = e as { code?: unknown; severity?: unknown; cause?: unknown };
    if (typeof code === 'string' && SESSION_LOST_CODES.has(code)) return true;
    if (severity === 'FATAL' || severity === 'PANIC') return true;
    e = cause;
  }
  return false;
}

/** The error a statement sent on a transaction that has ended gets, instead of reaching the driver. */
export class TransactionEndedError extends Error {
  constructor(reason: 'lost' | 'ended') {
    super(
      reason === 'lost'
        ? 'the transaction lost its PostgreSQL session: the statement was not sent'
        : 'the transaction has ended: a statement sent after it would run outside it, so it was not sent',
    );
    this.name = 'TransactionEndedError';
  }
}

/** One transaction's watch: whether its session is gone, and the error that first said so. */
export interface SessionWatch {
  /** Throws TransactionEndedError once the session is lost or the transaction has settled. */
  check(): void;
  /** Notes a statement's failure: a lost session refuses every later statement. */
  observe(err: unknown): void;
  /** True once the session is lost or the transaction (or the one it is nested in) has settled. */
  over(): boolean;
}

/**
 * Runs `begin(callback)` (the driver's `begin`, or `savepoint` inside the transaction `parent` watches) with `fn`
 * as the callback, guarded as described at the top of this module. `fn` receives the watch its statements go
 * through.
 */
export function guardedTransaction<Tx, T>(
  begin: (callback: (tx: Tx) => Promise<T>) => Promise<T>,
  fn: (tx: Tx, watch: SessionWatch) => Promise<T> | T,
  parent: SessionWatch | null = null,
): Promise<T> {
  let lostWith: unknown = null;
  let settled = false;
  let graceTimer: ReturnType<typeof setTimeout> | null = null;
  const finish = () => {
    settled = true;
    if (graceTimer) clearTimeout(graceTimer);
  };
  const watch: SessionWatch = {
    check() {
      parent?.check();
      if (lostWith !== null) throw new TransactionEndedError('lost');
      if (settled) throw new TransactionEndedError('ended');
    },
    observe(err) {
      parent?.observe(err);
      if (lostWith === null && sessionLost(err)) lostWith = err;
    },
    over: () => settled || lostWith !== null || (parent?.over() ?? false),
  };
  const callback = async (tx: Tx): Promise<T> => {
    let outcome: { ok: true; value: T } | { ok: false; err: unknown };
    try {
      outcome = { ok: true, value: await fn(tx, watch) };
    } catch (err) {
      watch.observe(err);
      outcome = { ok: false, err };
    }
    // Settling sends COMMIT, ROLLBACK or RELEASE. Once the driver's `begin` has given up (the socket closed), the
    // callback never settles and nothing is sent.
    if (settled || parent?.over()) return new Promise<T>(() => {});
    if (lostWith === null) {
      if (outcome.ok) return outcome.value;
      throw outcome.err;
    }
    // The session is lost but the driver has not seen the socket close yet: wait for its `begin` to reject. If no
    // close comes, the socket is still there and failing (with a ROLLBACK) is safe.
    const reason = lostWith;
    return new Promise<T>((_resolve, reject) => {
      graceTimer = setTimeout(() => {
        if (!(parent?.over() ?? false)) reject(reason as Error);
      }, LOSS_GRACE_MS);
      graceTimer.unref();
    });
  };
  return begin(callback).then(
    (value) => {
      finish();
      return value;
    },
    (err: unknown) => {
      finish();
      throw lostWith ?? err;
    },
  );
}
