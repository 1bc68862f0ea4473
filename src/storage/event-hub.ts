import type { StoreEvent } from './store.js';

/**
 * Fan-out of live store events to in-process subscribers. `open` registers the subscriber at
 * once (so nothing published after the call is missed) and returns an async iterator over the
 * events, ending when `signal` aborts.
 */
export class EventHub {
  private readonly subscribers = new Set<(e: StoreEvent) => void>();

  publish(events: StoreEvent[]): void {
    for (const e of events) for (const s of this.subscribers) s(e);
  }

  /** Synchronous listeners (cache invalidation): called for every event as it is published. */
  listen(listener: (e: StoreEvent) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  open(signal: AbortSignal): AsyncIterableIterator<StoreEvent> {
    const queue: StoreEvent[] = [];
    let wake: (() => void) | undefined;
    const push = (e: StoreEvent) => {
      queue.push(e);
      wake?.();
    };
    // an abort ends the subscription even if nobody reads on (a consumer that never started)
    const onAbort = () => {
      this.subscribers.delete(push);
      wake?.();
    };
    this.subscribers.add(push);
    signal.addEventListener('abort', onAbort);
    const close = () => {
      this.subscribers.delete(push);
      signal.removeEventListener('abort', onAbort);
    };
    const iterator: AsyncIterableIterator<StoreEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (queue.length === 0 && !signal.aborted) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        if (signal.aborted) {
          close();
          return { done: true, value: undefined };
        }
        return { done: false, value: queue.shift()! };
      },
      return: async () => {
        close();
        return { done: true, value: undefined };
      },
    };
    if (signal.aborted) close();
    return iterator;
  }
}

/**
 * A watch: the events `replay` yields (a driver's stored log after `since`), then the live ones,
 * each revision once and in order; `live` must be opened before the replay starts reading, so
 * nothing committed in between is missed. Closes `live` when the consumer stops.
 */
export async function* replayThenLive(live: AsyncIterableIterator<StoreEvent>, from: number, replay?: () => AsyncIterable<StoreEvent>): AsyncGenerator<StoreEvent> {
  let last = from;
  try {
    for (const source of [...(replay ? [replay()] : []), live]) {
      for await (const e of source) {
        if (e.revision <= last) continue;
        last = e.revision;
        yield e;
      }
    }
  } finally {
    await live.return?.();
  }
}
