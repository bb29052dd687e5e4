// What a long-running command does when its output goes away (`erawatch serve 2>&1 | head -5`, a closed
// terminal, a log pipe that died): a write to a closed stdout or stderr fails with EPIPE, which Node reports
// as an 'error' event; unheard it ends the process, and a handler that logs the failure to the other closed
// stream fails again, without end. Once a stream has failed it is given up: what was written to it goes on
// to the other stream while that one works, and is dropped when neither does. No write ever throws or spins,
// and SIGTERM and SIGINT keep working, since stopping never depends on output.

type Write = NodeJS.WriteStream['write'];

const installed = new WeakSet<NodeJS.WriteStream>();

/** Guards `process.stdout` and `process.stderr` (idempotent). */
export function guardProcessOutput(
  out: NodeJS.WriteStream = process.stdout,
  err: NodeJS.WriteStream = process.stderr,
): void {
  const failed = new Set<NodeJS.WriteStream>();
  const originals = new Map<NodeJS.WriteStream, Write>();
  for (const stream of [out, err]) {
    if (installed.has(stream)) continue;
    installed.add(stream);
    originals.set(stream, stream.write.bind(stream) as Write);
  }
  const writeTo = (stream: NodeJS.WriteStream, other: NodeJS.WriteStream, args: unknown[]): boolean => {
    const original = originals.get(stream);
    if (original && !failed.has(stream) && !stream.destroyed) {
      return (original as (...a: unknown[]) => boolean)(...args);
    }
    const otherOriginal = originals.get(other);
    if (otherOriginal && !failed.has(other) && !other.destroyed) {
      return (otherOriginal as (...a: unknown[]) => boolean)(...args);
    }
    // Neither works: the line is dropped, and a caller waiting for the write is told it is done.
    const callback = args.findLast((a) => typeof a === 'function') as (() => void) | undefined;
    if (callback) process.nextTick(callback);
    return true;
  };
  for (const [stream, other] of [
    [out, err],
    [err, out],
  ] as const) {
    if (!originals.has(stream)) continue;
    stream.on('error', () => {
      failed.add(stream);
    });
    stream.write = ((...args: unknown[]) => writeTo(stream, other, args)) as Write;
  }
}
