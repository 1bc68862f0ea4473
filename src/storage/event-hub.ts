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
  /** Called for each event; `first`: it is the first of the events one write published. */
  private readonly subscribers = new Set<(e: StoreEvent, first: boolean) => void>();

  /** The events of one write (or of writes committed together), in revision order. */
  publish(events: StoreEvent[]): void {
    events.forEach((e, i) => {
      for (const s of this.subscribers) s(e, i === 0);
    });
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
    const push = (e: StoreEvent, first: boolean) => {
      if (!queue.push(e, first)) {
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

/**
 * A subscriber's waiting events, their count and size held within `bound` (none: unbounded). The
 * bound is checked as each write's events arrive, against those of earlier writes still waiting:
 * one write of many events (a project's deletion, an import) never passes it by itself (they
 * were all in memory for the write anyway), and a subscriber that takes them goes on.
 */
class WaitingEvents {
  private readonly events: StoreEvent[] = [];
  private readonly sizes: number[] = [];
  private bytes = 0;

  constructor(private readonly bound: WatchBacklog | undefined) {}

  get empty(): boolean {
    return this.events.length === 0;
  }

  /** Queues `e` (`first` of its write's events); false, and nothing kept, when earlier writes' waiting events pass the bound. */
  push(e: StoreEvent, first: boolean): boolean {
    if (!this.bound) {
      this.events.push(e);
      return true;
    }
    if (first && (this.events.length >= this.bound.maxEvents || this.bytes > this.bound.maxBytes)) {
      this.clear();
      return false;
    }
    const size = jsonOf(e.object).length;
    this.events.push(e);
    this.sizes.push(size);
    this.bytes += size;
    return true;
  }

  shift(): StoreEvent {
    if (this.bound) this.bytes -= this.sizes.shift()!;
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
export async function* replayThenLive(
  live: AsyncIterableIterator<StoreEvent>,
  from: number,
  replay?: () => AsyncIterable<StoreEvent>,
): AsyncGenerator<StoreEvent> {
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
