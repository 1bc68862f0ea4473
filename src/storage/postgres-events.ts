import type pg from 'pg';
import { EventHub, replayThenLive } from './event-hub.js';
import { Mutex } from './mutex.js';
import type { Envelope, StoreEvent, WatchOptions } from './store.js';
import { checkWatchFrom, gone } from './store-rules.js';

/** The NOTIFY channel carrying the last revision of each commit. */
export const EVENTS_CHANNEL = 'dashplane_events';

/** Events read from the log per query. */
const PAGE = 500;

type Query = <R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string) => Promise<pg.QueryResult<R>>;

export interface PostgresEventsOptions {
  /** A query on the store's pool (`name`: prepared once per connection). */
  query: Query;
  /** A new client for the dedicated LISTEN connection. */
  client: () => pg.Client;
  /** Events kept in the log. */
  eventLogSize: number;
  /** Called with the payload of every other NOTIFY channel this connection listens to. */
  notified: (channel: string, payload: string) => void;
  /** The other channels to LISTEN to. */
  channels: readonly string[];
  /** Called when events were trimmed from the log before this process read them (some were never published here). */
  missed?: () => void;
  /**
   * This process's writes being committed now, settled once their events are published (none:
   * undefined). A notification that arrives meanwhile is read after them: their events are
   * published from memory, not read back from the log.
   */
  underway?: () => Promise<void> | undefined;
}

/**
 * PostgresStore's events: every replica's commits reach this process's `onEvent` listeners and
 * watches once each, in revision order. A dedicated connection LISTENs; each notification
 * carries a commit's last revision, and the events are then read from the log after the last one
 * published (so none is lost or doubled, whatever notifications coalesce). A lost connection is
 * re-established with a catch-up.
 */
export class PostgresEvents {
  private readonly hub = new EventHub();
  /** The last revision published to this process's subscribers (every replica's commits, in order). */
  private rev = 0;
  /** Lowest revision still in the event log, as last seen by this process. */
  private firstLogged = 1;
  /** Serialises publication: events reach subscribers once each, in revision order. */
  private readonly publishing = new Mutex();
  /** The revision read of `sync` in flight, and the one queued behind it. */
  private syncing?: Promise<void> | undefined;
  private nextSync?: Promise<void> | undefined;
  private listener?: pg.Client | undefined;
  private closed = false;
  private reconnectTimer?: NodeJS.Timeout;

  constructor(private readonly o: PostgresEventsOptions) {}

  /** Starts from the store as opened: its revision and the oldest logged event (null: an empty log). */
  async start(revision: number, oldest: number | null): Promise<void> {
    this.closed = false;
    this.rev = revision;
    this.firstLogged = oldest ?? revision + 1;
    await this.connectListener();
    // commits made between reading the revision and LISTEN
    await this.publishing.run(() => this.catchUp()).catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.closed = true;
    clearTimeout(this.reconnectTimer);
    const listener = this.listener;
    this.listener = undefined;
    await listener?.end().catch(() => undefined);
  }

  /** Events kept in the log. */
  get logSize(): number {
    return this.o.eventLogSize;
  }

  /** The revision below which a write that reached `last` trims the log, or undefined when it keeps everything. */
  trimBelow(last: number): number | undefined {
    return last - this.o.eventLogSize >= this.firstLogged ? last - this.o.eventLogSize + 1 : undefined;
  }

  /**
   * After this process committed `events` (numbered from `first`): published before the write
   * returns (onEvent listeners see it first), after every earlier revision.
   */
  async committed(first: number, events: StoreEvent[], trimmed: boolean): Promise<void> {
    const last = first + events.length - 1;
    // the log now starts after what this commit trimmed, whichever path publishes the events below
    if (trimmed) this.firstLogged = Math.max(this.firstLogged, last - this.o.eventLogSize + 1);
    await this.publishing
      .run(async () => {
        if (this.rev >= last) return;
        if (this.rev === first - 1) {
          this.rev = last;
          this.firstLogged = Math.max(this.firstLogged, last - this.o.eventLogSize + 1);
          this.hub.publish(events);
          return;
        }
        // earlier commits (here or on another replica) are not published yet: read those, not these
        await this.catchUp(first);
        if (this.rev === first - 1) {
          this.rev = last;
          this.firstLogged = Math.max(this.firstLogged, last - this.o.eventLogSize + 1);
          this.hub.publish(events);
        } else if (this.rev < last) await this.catchUp();
      })
      .catch(() => undefined); // committed all the same; the next notification catches up
  }

  listen(listener: (e: StoreEvent) => void): () => void {
    return this.hub.listen(listener);
  }

  watch(opts: WatchOptions): AsyncIterable<StoreEvent> {
    const since = opts.since;
    checkWatchFrom(since, this.rev, this.firstLogged - 1);
    // subscribe before reading the log: nothing committed from now on is missed (duplicates are skipped)
    const live = this.hub.open(opts.signal, opts.backlog);
    const read = (after: number) => this.read(after);
    const replay = async function* (): AsyncGenerator<StoreEvent> {
      let cursor = since!;
      for (;;) {
        const events = await read(cursor);
        // revisions are gapless: a first event after `since` other than since+1 was trimmed
        if (cursor === since && events.length && events[0].revision !== since + 1) throw gone(since, events[0].revision - 1);
        for (const e of events) {
          if (opts.signal.aborted) return;
          cursor = e.revision;
          yield e;
        }
        if (events.length < PAGE) return;
      }
    };
    return replayThenLive(live, since ?? this.rev, since !== undefined ? replay : undefined);
  }

  /**
   * Other replicas' commits are notified asynchronously: one read of the log after the last
   * published revision (empty when there is nothing new) publishes what a notification has not
   * brought yet. Concurrent callers share reads: a caller arriving while one is in flight
   * (which may have been sent before its call) waits for the next one, shared by all who arrive
   * meanwhile; under load that is two reads per round trip instead of one per request.
   */
  sync(): Promise<void> {
    if (!this.syncing) return this.startSync();
    this.nextSync ??= this.syncing
      .catch(() => undefined)
      .then(() => {
        this.nextSync = undefined;
        return this.startSync();
      });
    return this.nextSync;
  }

  private startSync(): Promise<void> {
    const run = this.publishing
      .run(() => this.catchUp())
      .finally(() => {
        if (this.syncing === run) this.syncing = undefined;
      });
    this.syncing = run;
    return run;
  }

  /** LISTEN on a dedicated connection; a lost one is re-established (with a catch-up). */
  private async connectListener(): Promise<void> {
    const client = this.o.client();
    const lost = () => {
      if (this.listener !== client) return;
      this.listener = undefined;
      client.end().catch(() => undefined);
      this.scheduleReconnect();
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (n) => {
      // checked again when its turn comes: a read queued behind another may find nothing left to read
      const upTo = Number(n.payload);
      if (n.channel === EVENTS_CHANNEL && upTo > this.rev) {
        const read = () => void this.publishing.run(async () => void (upTo > this.rev && (await this.catchUp()))).catch(() => undefined);
        const underway = this.o.underway?.();
        if (underway) void underway.then(read);
        else read();
      } else if (n.channel !== EVENTS_CHANNEL) this.o.notified(n.channel, n.payload ?? '');
    });
    await client.connect();
    for (const channel of [EVENTS_CHANNEL, ...this.o.channels]) await client.query(`LISTEN ${channel}`);
    this.listener = client;
  }

  private scheduleReconnect(delay = 200): void {
    if (this.closed) return;
    this.reconnectTimer = setTimeout(() => {
      this.connectListener().then(
        () => this.publishing.run(() => this.catchUp()).catch(() => undefined),
        () => this.scheduleReconnect(Math.min(delay * 2, 5_000)),
      );
    }, delay);
    this.reconnectTimer.unref();
  }

  /** Publishes every logged event after the last published one (before revision `before`, when given; call under `publishing`). */
  private async catchUp(before?: number): Promise<void> {
    if (this.closed) return;
    for (;;) {
      const events = await this.read(this.rev, before);
      if (!events.length) return;
      // a gap after the last published revision means those events were trimmed meanwhile
      if (events[0].revision > this.rev + 1) {
        this.firstLogged = Math.max(this.firstLogged, events[0].revision);
        this.o.missed?.();
      }
      this.rev = events[events.length - 1].revision;
      this.hub.publish(events);
      if (events.length < PAGE) return;
    }
  }

  /** A page of logged events after revision `after` (and before `before`). */
  private async read(after: number, before?: number): Promise<StoreEvent[]> {
    type Row = { revision: string; type: StoreEvent['type']; object: Envelope };
    const { rows } =
      before === undefined
        ? await this.o.query<Row>(
            'SELECT revision, type, object FROM dashplane_events WHERE revision > $1 ORDER BY revision LIMIT $2',
            [after, PAGE],
            'dashplane_events_after',
          )
        : await this.o.query<Row>(
            'SELECT revision, type, object FROM dashplane_events WHERE revision > $1 AND revision < $2 ORDER BY revision LIMIT $3',
            [after, before, PAGE],
            'dashplane_events_between',
          );
    return rows.map((r) => ({ type: r.type, revision: Number(r.revision), object: r.object }));
  }
}
