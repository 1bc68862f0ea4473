import type { Envelope, EventType } from '../storage/store.js';

/**
 * Objects entering and leaving a watch's filters (`default=true`, `kind=...`), as a Kubernetes
 * watch reports them: a change that makes an object match is an ADDED, one that makes it stop
 * matching a DELETED (with the object as it is now), so a client's view built from the stream
 * equals the list. A stream that started with the current objects knows which ones the client
 * holds; one resumed with `since` does not, and reports a non-matching change of an object it
 * has not placed yet as DELETED once (the client may hold it from before).
 */
export class FilterMoves {
  /** Keys the client holds (the last event sent for them matched), and keys it does not. */
  private readonly held = new Set<string>();
  private readonly notHeld = new Set<string>();

  constructor(
    private readonly filtered: boolean,
    /** The stream started with every current object (no `since`). */
    private readonly knowsAll: boolean,
  ) {}

  sent(o: Envelope): void {
    if (this.filtered) this.held.add(keyText(o));
  }

  /** The event to send for a store event of a visible object, or undefined for none. */
  typeOf(type: EventType, o: Envelope, matches: boolean): EventType | undefined {
    if (!this.filtered) return type;
    const k = keyText(o);
    const held = this.held.has(k);
    const unknown = !held && !this.notHeld.has(k) && !this.knowsAll;
    if (type === 'DELETED') {
      this.held.delete(k);
      this.notHeld.delete(k);
      return held || (unknown && matches) ? 'DELETED' : undefined;
    }
    if (!matches) {
      this.held.delete(k);
      this.notHeld.add(k);
      return held || (unknown && type === 'MODIFIED') ? 'DELETED' : undefined;
    }
    this.held.add(k);
    this.notHeld.delete(k);
    if (type === 'ADDED' || held || unknown) return type;
    return 'ADDED';
  }
}

function keyText(o: Envelope): string {
  return `${o.metadata.project ?? ''}\u0000${o.metadata.name}`;
}
