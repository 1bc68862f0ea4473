import { waitFor } from './wait.js';

/** One line of a watch stream (docs/api.md §6); an ERROR's object is `{kind: "Status", code, reason, message}`. */
export interface WatchEvent {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  revision: number;
  object?: {
    kind: string;
    metadata: { name: string; project?: string; version: number; updatedAt: string };
    spec: any;
    code?: number;
    reason?: string;
    message?: string;
  };
}

/**
 * A `?watch=true` stream read with fetch: every NDJSON line parsed into `events` as it arrives.
 * `ended` turns true when the server ends the body (or the connection breaks).
 */
export class WatchStream {
  readonly events: WatchEvent[] = [];
  ended = false;
  endedAt?: number;
  /** Lines that were not valid JSON (must stay empty). */
  readonly garbage: string[] = [];
  /** Arrival time (Date.now()) of each event, same index as `events`. */
  readonly arrivedAt: number[] = [];
  private readonly done: Promise<void>;

  private constructor(
    readonly status: number,
    readonly contentType: string | null,
    private readonly body: ReadableStream<Uint8Array>,
    private readonly ac: AbortController,
  ) {
    this.done = this.pump();
  }

  /**
   * Opens a watch; resolves once the response headers arrived. A non-200 answer is returned as
   * `{status, text}` instead of a stream.
   */
  static async open(url: string, headers: Record<string, string> = {}): Promise<WatchStream | { status: number; text: string }> {
    const ac = new AbortController();
    const res = await fetch(url, { headers, signal: ac.signal });
    if (res.status !== 200 || !res.body) return { status: res.status, text: await res.text() };
    return new WatchStream(res.status, res.headers.get('content-type'), res.body, ac);
  }

  /** Like `open` but throws unless the answer is a stream. */
  static async must(url: string, headers: Record<string, string> = {}): Promise<WatchStream> {
    const w = await WatchStream.open(url, headers);
    if (!(w instanceof WatchStream)) throw new Error(`watch ${url} answered ${w.status}: ${w.text}`);
    return w;
  }

  private async pump(): Promise<void> {
    const reader = this.body.getReader();
    const decoder = new TextDecoder();
    let buf = '';
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += decoder.decode(value, { stream: true });
        for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim() === '') continue;
          try {
            this.events.push(JSON.parse(line) as WatchEvent);
            this.arrivedAt.push(Date.now());
          } catch {
            this.garbage.push(line);
          }
        }
      }
    } catch {
      // aborted by us or the connection broke: the stream is over either way
    } finally {
      if (buf.trim() !== '') this.garbage.push(buf);
      this.ended = true;
      this.endedAt = Date.now();
    }
  }

  /** Events other than BOOKMARK and ERROR. */
  changes(): WatchEvent[] {
    return this.events.filter((e) => e.type !== 'BOOKMARK' && e.type !== 'ERROR');
  }

  /** The final ERROR event, if the server ended the stream with one. */
  error(): WatchEvent | undefined {
    return this.events.find((e) => e.type === 'ERROR');
  }

  /** `TYPE project/name` of every change, for readable comparisons. */
  summary(from = 0): string[] {
    return this.changes()
      .slice(from)
      .map((e) => `${e.type} ${e.object!.metadata.project ?? ''}/${e.object!.metadata.name}`);
  }

  /** Waits until `pred` holds for some event (at index >= from) and returns it. */
  async waitForEvent(what: string, pred: (e: WatchEvent) => boolean, timeoutMs = 10_000, from = 0): Promise<WatchEvent> {
    const events = () => JSON.stringify(this.events.map((e) => [e.type, e.revision, e.object?.metadata?.name ?? e.object?.message]));
    return waitFor(
      `${what} (events so far: ${events()})`,
      () => {
        const found = this.events.slice(from).find(pred);
        // an ended stream gets nothing more: say so now rather than at the deadline
        if (!found && this.ended) throw new Error(`the stream ended without ${what}; its events: ${events()}`);
        return found!;
      },
      timeoutMs,
      5,
    );
  }

  /** Waits until at least n changes (non-BOOKMARK events) arrived. */
  async waitForChanges(n: number, timeoutMs = 10_000): Promise<WatchEvent[]> {
    await waitFor(`${n} changes (got ${JSON.stringify(this.summary())})`, () => this.changes().length >= n, timeoutMs, 5);
    return this.changes();
  }

  /**
   * Waits for a BOOKMARK at or after revision `rev`: every event up to `rev` has been sent by then,
   * so the stream can be checked for "nothing more, nothing repeated".
   */
  async settle(rev: number, timeoutMs = 10_000): Promise<void> {
    await this.waitForEvent(`a BOOKMARK at revision >= ${rev}`, (e) => e.type === 'BOOKMARK' && e.revision >= rev, timeoutMs);
  }

  async waitEnded(timeoutMs = 10_000): Promise<void> {
    await waitFor('the watch stream to end', () => this.ended, timeoutMs, 5);
  }

  /** Disconnects (client side) and waits for the reader to stop. */
  async close(): Promise<void> {
    this.ac.abort();
    await this.done;
  }
}
