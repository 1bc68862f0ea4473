/** A minimal FIFO async mutex: `run(fn)` executes fn after every earlier fn has settled. */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn, fn);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

/** One FIFO mutex per key, dropped when idle: serialises work on the same object only. */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    const result = prev.then(fn, fn);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}

/**
 * Readers run side by side; `exclusive(fn)` runs fn with no reader in flight, and readers that come
 * meanwhile wait for it. A reader still running after `drainMs` (a slow watch replay, a backup)
 * does not hold fn back: fn runs, and may cut it.
 */
export class Gate {
  private readers = 0;
  private shut?: Promise<void> | undefined;
  private drained?: (() => void) | undefined;

  async run<T>(fn: () => Promise<T>): Promise<T> {
    while (this.shut) await this.shut;
    this.readers++;
    try {
      return await fn();
    } finally {
      if (--this.readers === 0) this.drained?.();
    }
  }

  /** The items of `source()`, read as one reader from the first to the last. */
  async *iterate<T>(source: () => AsyncIterable<T>): AsyncGenerator<T> {
    while (this.shut) await this.shut;
    this.readers++;
    try {
      yield* source();
    } finally {
      if (--this.readers === 0) this.drained?.();
    }
  }

  async exclusive<T>(fn: () => Promise<T>, drainMs: number): Promise<T> {
    while (this.shut) await this.shut;
    let open!: () => void;
    this.shut = new Promise((resolve) => (open = resolve));
    try {
      if (this.readers > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, drainMs);
          this.drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return await fn();
    } finally {
      this.drained = undefined;
      this.shut = undefined;
      open();
    }
  }
}
