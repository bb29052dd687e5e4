// A counting semaphore: the poller's global cap on probes in flight.

export interface Limiter {
  run<T>(task: () => Promise<T>): Promise<T>;
  readonly active: number;
  readonly waiting: number;
}

/**
 * First in, first out, O(1) per operation. A plain array's shift() copies the whole queue once it is past
 * about 16,000 waiters (large-object space), which is where a backlog of 500-node cycles lands.
 */
class WaitQueue {
  private items: Array<(() => void) | undefined> = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: () => void): void {
    this.items.push(item);
  }

  shift(): (() => void) | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.items[this.head] = undefined;
    this.head += 1;
    if (this.head === this.items.length) {
      this.items = [];
      this.head = 0;
    } else if (this.head >= 1024 && this.head * 2 >= this.items.length) {
      // Drop the consumed front in one copy of the (shorter) rest.
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }
}

export function createLimiter(max: number): Limiter {
  if (!Number.isInteger(max) || max < 1)
    throw new RangeError(`concurrency must be a positive integer, got ${max}`);
  let active = 0;
  const queue = new WaitQueue();
  const release = () => {
    active -= 1;
    const next = queue.shift();
    if (next) {
      active += 1;
      next();
    }
  };
  return {
    async run<T>(task: () => Promise<T>): Promise<T> {
      if (active < max) active += 1;
      else await new Promise<void>((resolve) => queue.push(resolve));
      try {
        return await task();
      } finally {
        release();
      }
    },
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
  };
}
