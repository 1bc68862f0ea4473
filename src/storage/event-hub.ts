import type { StoreEvent } from './store.js';

/**
 * Fan-out of live store events to in-process subscribers, as async iterables.
 * Shared by the store drivers; issue 5 puts the persisted event log behind it.
 */
export class EventHub {
  private readonly subscribers = new Set<(e: StoreEvent) => void>();

  publish(events: StoreEvent[]): void {
    for (const e of events) for (const s of this.subscribers) s(e);
  }

  /** Yields every event published after the call until `signal` aborts. */
  async *subscribe(signal: AbortSignal): AsyncIterable<StoreEvent> {
    const queue: StoreEvent[] = [];
    let wake: (() => void) | undefined;
    const push = (e: StoreEvent) => {
      queue.push(e);
      wake?.();
    };
    const onAbort = () => wake?.();
    this.subscribers.add(push);
    signal.addEventListener('abort', onAbort);
    try {
      while (!signal.aborted) {
        if (queue.length === 0) await new Promise<void>((r) => (wake = r));
        wake = undefined;
        while (queue.length > 0 && !signal.aborted) yield queue.shift()!;
      }
    } finally {
      this.subscribers.delete(push);
      signal.removeEventListener('abort', onAbort);
    }
  }
}
