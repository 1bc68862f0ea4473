import { jsonOf } from '../lib/json-of.js';
import type { StoreEvent, WatchBacklog } from './store.js';

/**
 * Fan-out of live store events to in-process subscribers. `open` registers the subscriber at
 * once (so nothing published after the call is missed) and returns an async iterator over the
 * events, ending when `signal` aborts, or when more than its `backlog` waits for it. Every
 * subscriber gets the same events in the same order, so what waits for all of them together is
 * what waits for the one furthest behind: one backlog's worth.
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

  open(signal: AbortSignal, backlog?: WatchBacklog): AsyncIterableIterator<StoreEvent> {
    const queue = new WaitingEvents(backlog);
    let wake: (() => void) | undefined;
    let overflowed = false;
    const push = (e: StoreEvent) => {
      if (!queue.push(e)) {
        overflowed = true;
        this.subscribers.delete(push);
        backlog!.overflow();
      }
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
      queue.clear();
    };
    const iterator: AsyncIterableIterator<StoreEvent> = {
      [Symbol.asyncIterator]: () => iterator,
      next: async () => {
        while (queue.empty && !signal.aborted && !overflowed) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        if (signal.aborted || overflowed) {
          close();
          return { done: true, value: undefined };
        }
        return { done: false, value: queue.shift() };
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

/** A subscriber's waiting events, their count and size held within `bound` (none: unbounded). */
class WaitingEvents {
  private readonly events: StoreEvent[] = [];
  private readonly sizes: number[] = [];
  private bytes = 0;

  constructor(private readonly bound: WatchBacklog | undefined) {}

  get empty(): boolean {
    return this.events.length === 0;
  }

  /** Queues `e`; false (and nothing kept) when that passes the bound (one event alone never does). */
  push(e: StoreEvent): boolean {
    const size = this.bound ? jsonOf(e.object).length : 0;
    if (this.bound && (this.events.length >= this.bound.maxEvents || (this.events.length > 0 && this.bytes + size > this.bound.maxBytes))) {
      this.clear();
      return false;
    }
    this.events.push(e);
    this.sizes.push(size);
    this.bytes += size;
    return true;
  }

  shift(): StoreEvent {
    this.bytes -= this.sizes.shift()!;
    return this.events.shift()!;
  }

  clear(): void {
    this.events.length = 0;
    this.sizes.length = 0;
    this.bytes = 0;
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
