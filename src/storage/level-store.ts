import { Level } from 'level';
import { ApiError } from '../errors.js';
import { jsonOf } from '../lib/json-of.js';
import { consoleLog, type LogFn } from '../lib/log-fn.js';
import { EventHub, replayThenLive } from './event-hub.js';
import { LevelAudit } from './level-audit.js';
import { type Compacting, LevelCompaction } from './level-compaction.js';
import { GroupCommit, type Planned } from './level-group-commit.js';
import { LevelHistory } from './level-history.js';
import { dropProbeFile, LevelRecovery } from './level-recovery.js';
import {
  type BatchOp,
  EVENTS_END,
  HIGH,
  REVISION_KEY,
  SEP,
  createdKey,
  eventKey,
  isObjectKey,
  managersKey,
  metadataRecordKey,
  objectKey,
  projectRecordPrefixes,
  scopePrefix,
  tombstoneKey,
} from './level-keys.js';
import { docOf, LevelSearch, searchRecordKey } from './level-search.js';
import type { SearchPlan } from './level-search-query.js';
import { refuseHeadlessDatabase, translateOpenError, upgradeLevelData } from './level-upgrades.js';
import { LevelMetadata } from './level-metadata.js';
import { each, readAll } from './level-read.js';
import { KeyedMutex, Mutex } from './mutex.js';
import { privateDir } from './private-dir.js';
import { RecentTexts } from './recent-texts.js';
import { StoreParts } from './store-parts.js';
import type {
  CreateOptions,
  DeleteOptions,
  DumpItem,
  Envelope,
  ListQuery,
  ObjectKey,
  SearchCandidate,
  SearchQuery,
  Store,
  StoreEvent,
  WatchOptions,
  StoredText,
  UpdateOptions,
} from './store.js';
import { keyOf } from './store.js';
import {
  NOBODY,
  checkDelete,
  checkUpdate,
  checkWatchFrom,
  createdManagers,
  historyPlan,
  missing,
  taken,
  updatedManagers,
} from './store-rules.js';
import { frozenText, metadataText, storedText } from './stored-text.js';

/**
 * The embedded default store: LevelDB through `level`. One process owns the directory (LevelDB's
 * LOCK file); writes are committed by one writer, in groups (level-group-commit.ts), each group one
 * atomic batch holding the objects, their managers records, history entries, events, creation
 * revisions and the new store-wide revision, so a crash never leaves half a write. The event log
 * keeps the last `eventLogSize` events for watches that resume. The key layout is level-keys.ts;
 * the rules every driver follows are store-rules.ts.
 */
export class LevelStore extends StoreParts implements Store {
  /** Made by open(), not by the constructor (see there). */
  private db!: Level<string, string>;
  private readonly writes = new Mutex();
  private readonly locks = new KeyedMutex();
  private readonly hub = new EventHub();
  /** Metadata of the kinds listed with metadataOnly or a name prefix so far, kept current by commit(). */
  private readonly metadata: LevelMetadata;
  private readonly eventLogSize: number;
  private rev = 0;
  /** Lowest revision still in the event log. */
  private firstLogged = 1;
  /** Texts of objects read lately; commit() drops what it changes. */
  private readonly recent = new RecentTexts(RECENT_TEXT_CHARS);
  private readonly group = new GroupCommit(this.writes, (planned) => this.commit(planned));
  /** Bumped by every commit: a read that a commit overtook is not kept in `recent`. */
  private generation = 0;
  /** After a failed write: writes refused until the database is re-opened; reads go through it. */
  private readonly recovery: LevelRecovery;
  private readonly log: LogFn;
  protected audit!: LevelAudit;
  protected history!: LevelHistory;
  private searchIndex!: LevelSearch;
  private readonly searchKinds: readonly string[];

  private readonly searchPlan?: SearchPlan | undefined;
  /** Compacts after large deletes (level-compaction.ts). */
  private readonly compaction: LevelCompaction;

  /**
   * @param opts.searchKinds the kinds whose objects the search index holds (none: no index; the
   *   store's writes then drop it, and a store opened with kinds builds it again)
   * @param opts.searchPlan (tests) the plan every search takes where it applies (level-search-query.ts)
   * @param opts.compactAfterDeleted (tests) keys one write deletes past which the store is compacted
   */
  constructor(
    private readonly path: string,
    opts: {
      eventLogSize?: number;
      log?: LogFn;
      searchKinds?: readonly string[];
      searchPlan?: SearchPlan;
      compactAfterDeleted?: number;
    } = {},
  ) {
    super();
    this.eventLogSize = opts.eventLogSize ?? 10_000;
    this.log = opts.log ?? consoleLog;
    this.searchKinds = opts.searchKinds ?? [];
    this.searchPlan = opts.searchPlan;
    this.compaction = new LevelCompaction({
      // `level` is classic-level in Node, which compacts; its cross-platform types do not say so
      db: () => this.db as unknown as Compacting,
      log: this.log,
      ...(opts.compactAfterDeleted !== undefined ? { threshold: opts.compactAfterDeleted } : {}),
    });
    this.recovery = new LevelRecovery({ path, db: () => this.db, writes: this.writes, log: this.log });
    this.metadata = new LevelMetadata({
      db: () => this.db,
      writes: this.writes,
      read: (fn) => this.recovery.read(fn),
      generation: () => this.generation,
    });
  }

  async open(): Promise<void> {
    const narrowed = privateDir(this.path);
    if (narrowed) this.log('warn', narrowed);
    dropProbeFile(this.path);
    refuseHeadlessDatabase(this.path);
    // The Level is made only now, after that check: a Level opens itself a microtask after it is
    // made, creating a database where there is none. Made in the constructor, a store opened
    // later than that (migrate-store opens its source first) saw its own half-made database as
    // damaged, and a damaged directory was "created" over (a new MANIFEST and CURRENT written
    // beside its old files) before the check could refuse it.
    this.db = new Level<string, string>(this.path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    const read = <T>(fn: () => Promise<T>) => this.recovery.read(fn);
    // entries of their own go through the writer too: they are numbered in commit order; an old
    // page is deleted as a write (under the write lock, as every write)
    this.audit = new LevelAudit(this.db, {
      read,
      append: async (entries) => void (await this.group.write([], false, async () => ({ ops: [], events: [], audit: entries }))),
      del: (keys) => this.writes.run(() => this.batch(keys.map((key) => ({ type: 'del' as const, key })))),
    });
    this.history = new LevelHistory(this.db, read);
    this.searchIndex = new LevelSearch(this.db, this.searchKinds, this.log, this.searchPlan);
    try {
      await this.db.open();
    } catch (e) {
      throw translateOpenError(e, this.path);
    }
    const stored = await this.db.get(REVISION_KEY);
    this.rev = stored === undefined ? 0 : Number(stored);
    const first = await this.db.keys({ gte: eventKey(0), lt: EVENTS_END, limit: 1 }).all();
    this.firstLogged = first.length ? Number(first[0].slice(2)) : this.rev + 1;
    await upgradeLevelData(this.db);
    await this.audit.open();
    await this.searchIndex.open(this.rev === 0, { locked: (fn) => this.writes.run(fn), batch: (ops) => this.batch(ops) });
    this.compaction.start();
  }

  async close(): Promise<void> {
    this.recovery.stop();
    if (!this.db) return; // never opened
    await this.searchIndex?.stop();
    await this.compaction.stop();
    await this.writes.run(() => this.db.close());
  }

  async ping(): Promise<void> {
    this.recovery.checkHealth();
    if (this.db?.status !== 'open') throw new ApiError('Unavailable', 'the database is not open');
    await this.recovery.read(() => this.db.get(REVISION_KEY));
  }

  async get(key: ObjectKey): Promise<Envelope | undefined> {
    const found = await this.getText(key);
    return found === undefined ? undefined : (JSON.parse(found.text.toString()) as Envelope);
  }

  /** From the recently read objects when no commit changed it since (shared: the metadata is frozen). */
  async getText(key: ObjectKey): Promise<StoredText | undefined> {
    const k = objectKey(key);
    const hit = this.recent.get(k);
    if (hit !== undefined) return hit;
    const generation = this.generation;
    const raw = await this.recovery.read(() => this.db.get<string, Buffer>(k, { valueEncoding: 'buffer' }));
    if (raw === undefined) return undefined;
    const found = frozenText(storedText(raw));
    // a commit that ran during the read may have changed it: keep only what no commit overtook
    if (generation === this.generation) this.recent.set(k, found);
    return found;
  }

  async list(q: ListQuery): Promise<Envelope[]> {
    if (q.metadataOnly) return this.metadata.list(q);
    return (await this.scan(q, 'utf8')).map((t) => JSON.parse(t) as Envelope);
  }

  /**
   * As bytes: a list's response is their concatenation, with no decoding and encoding again. A
   * name-prefix list (and any list of the kind once its index is loaded) takes its keys from the
   * metadata index and its texts from the objects read lately, reading only the others: a scan
   * reads LevelDB's blocks whole, keys and values together, even for keys alone.
   */
  async listText(q: ListQuery): Promise<StoredText[]> {
    if (q.namePrefix && q.project !== undefined) await this.metadata.load(q.kind);
    const listed = this.metadata.entries(q);
    if (listed === undefined || listed.length > KEYED_LIST_MAX) return (await this.scan(q, 'buffer')).map(storedText);
    return (await this.textsOf(listed.map((e) => objectKey({ kind: q.kind, project: e.project, name: e.name })))).filter(
      (t) => t !== undefined,
    );
  }

  /** The texts of `keys`, in that order (undefined: gone): from `recent`, the others in one read (kept in `recent` when few). */
  private async textsOf(keys: readonly string[]): Promise<(StoredText | undefined)[]> {
    const generation = this.generation;
    const found = keys.map((k) => this.recent.get(k));
    const missing = keys.filter((_, i) => found[i] === undefined);
    if (missing.length === 0) return found;
    const raws = await this.recovery.read(() => this.db.getMany<string, Buffer>(missing, { valueEncoding: 'buffer' }));
    const keep = generation === this.generation && missing.length <= RECENT_FROM_LIST;
    let j = 0;
    return found.map((hit, i) => {
      if (hit !== undefined) return hit;
      const raw = raws[j++];
      if (raw === undefined) return undefined; // deleted since the index listed it
      const text = frozenText(storedText(raw));
      if (keep) this.recent.set(keys[i], text);
      return text;
    });
  }

  /** Candidates from the search index (level-search.ts), read as the caller iterates. */
  async search(q: SearchQuery): Promise<AsyncIterable<SearchCandidate> | undefined> {
    return this.searchIndex.search(q, { texts: (keys) => this.recovery.read(() => this.textsOf(keys)) });
  }

  /** The stored values of a list, in key order (names checked against the prefix from their keys). */
  private async scan<E extends 'utf8' | 'buffer'>(q: ListQuery, valueEncoding: E): Promise<(E extends 'utf8' ? string : Buffer)[]> {
    type V = E extends 'utf8' ? string : Buffer;
    const base = q.project === undefined ? `o${SEP}${q.kind}${SEP}` : scopePrefix(q.kind, q.project);
    const from = q.project !== undefined && q.namePrefix ? base + q.namePrefix : base;
    const range: { gte?: string; gt?: string; lt: string } = { lt: from + HIGH };
    const afterKey = q.after ? objectKey({ kind: q.kind, project: q.after.project, name: q.after.name }) : undefined;
    if (afterKey !== undefined && afterKey >= from) range.gt = afterKey;
    else range.gte = from;
    // names in the range all match the prefix unless it spans every project
    const options = { ...range, valueEncoding, highWaterMarkBytes: SCAN_BYTES };
    if (q.project !== undefined || !q.namePrefix)
      return this.recovery.read(() =>
        readAll(this.db.values<string, V>({ ...options, ...(q.limit !== undefined ? { limit: q.limit } : {}) })),
      );
    const limit = q.limit ?? Infinity;
    return this.recovery.read(async () => {
      const out: V[] = [];
      for await (const [key, raw] of each(this.db.iterator<string, V>(options))) {
        if (q.namePrefix && !key.slice(key.lastIndexOf(SEP) + 1).startsWith(q.namePrefix)) continue;
        out.push(raw);
        if (out.length >= limit) break;
      }
      return out;
    });
  }

  snapshot(q: ListQuery): Promise<{ items: Envelope[]; revision: number }> {
    return this.writes.run(async () => ({ items: await this.list(q), revision: this.rev }));
  }

  create(obj: Envelope, opts: CreateOptions = {}): Promise<number> {
    const all = [obj, ...(opts.also ?? [])];
    const keys = all.map((o) => objectKey(keyOf(o)));
    return this.group.write(keys, false, async () => {
      // one read for every key: the new objects must not exist, the parent must; the tombstone
      // says whether the name has an old history
      const tombstone = tombstoneKey(keyOf(obj));
      const found = await this.db.getMany([...keys, tombstone, ...(opts.parent ? [objectKey(opts.parent)] : [])]);
      all.forEach((o, i) => {
        if (found[i] !== undefined) throw taken(o);
      });
      if (opts.parent && found[all.length + 1] === undefined) throw missing(opts.parent);
      const ops: BatchOp[] = all.map((o, i) => ({ type: 'put' as const, key: keys[i], value: jsonOf(o) }));
      all.forEach((o, i) =>
        ops.push(...this.history.managersOps(o, createdManagers(o, i === 0, opts)), ...this.searchIndex.writeOps(o, undefined)),
      );
      const plan = historyPlan(obj, opts.history, 'create');
      if (found[all.length] !== undefined) {
        ops.push({ type: 'del', key: tombstone });
        if (plan.dropEarlier) ops.push(...(await this.history.dropOps(keyOf(obj))));
      }
      if (plan.record) ops.push(this.history.entryOp(obj, opts.writer ?? NOBODY));
      if (plan.dropBelow !== undefined) ops.push(...(await this.history.dropOps(keyOf(obj), plan.dropBelow)));
      return { ops, events: all.map((o) => ({ type: 'ADDED' as const, object: o })), audit: opts.audit };
    });
  }

  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    const key = objectKey(keyOf(obj));
    return this.group.write([key], false, async () => {
      // the metadata only, not the 10 KB body; usually from `recent` (the caller has just read it)
      checkUpdate(obj, (await this.getText(keyOf(obj)))?.metadata, opts.expectedVersion);
      const record = this.searchIndex.tracks(obj.kind) ? await this.db.get(searchRecordKey(docOf(keyOf(obj)))) : undefined;
      const ops: BatchOp[] = [{ type: 'put', key, value: jsonOf(obj) }, ...this.searchIndex.writeOps(obj, record)];
      ops.push(...this.history.managersOps(obj, await updatedManagers(obj, opts, () => this.history.managersRecord(keyOf(obj)))));
      const plan = historyPlan(obj, opts.history, 'update');
      if (plan.record) ops.push(this.history.entryOp(obj, opts.writer ?? NOBODY));
      if (plan.dropBelow !== undefined) ops.push(...(await this.history.dropOps(keyOf(obj), plan.dropBelow)));
      return { ops, events: [{ type: 'MODIFIED', object: obj }], audit: opts.audit };
    });
  }

  /** Deletes are committed alone: their scans of children must see every earlier write. */
  async delete(k: ObjectKey, opts: DeleteOptions = {}): Promise<number> {
    const key = objectKey(k);
    let deleted = 0;
    const revision = await this.group.write([key], true, async () => {
      const [current, record] = await this.db.getMany([key, searchRecordKey(docOf(k))]);
      const obj = current === undefined ? undefined : (JSON.parse(current) as Envelope);
      checkDelete(k, obj?.metadata, opts);
      const ops: BatchOp[] = this.searchIndex.deleteOps(docOf(k), record);
      const events: Omit<StoreEvent, 'revision'>[] = [];
      for (const kind of opts.children?.kinds ?? []) {
        const project = opts.children!.project;
        const prefix = scopePrefix(kind, project);
        for await (const [childKey, raw] of each(this.db.iterator({ gte: prefix, lt: prefix + HIGH }))) {
          ops.push({ type: 'del', key: childKey });
          events.push({ type: 'DELETED', object: JSON.parse(raw) as Envelope });
        }
        const records = searchRecordKey(prefix.slice(2));
        for await (const [recordKey, rec] of each(this.db.iterator({ gte: records, lt: records + HIGH })))
          ops.push(...this.searchIndex.deleteOps(recordKey.slice(2), rec));
        for (const p of projectRecordPrefixes(kind, project))
          ops.push(...(await readAll(this.db.keys({ gte: p, lt: p + HIGH }))).map((hk) => ({ type: 'del' as const, key: hk })));
      }
      ops.push({ type: 'del', key }, { type: 'del', key: managersKey(k) });
      // its history stays (restore brings it back): mark the name
      if (await this.history.has(k)) ops.push({ type: 'put', key: tombstoneKey(k), value: '' });
      events.push({ type: 'DELETED', object: obj! });
      deleted = ops.filter((o) => o.type === 'del').length;
      return { ops, events, audit: opts.audit };
    });
    this.compaction.deleted(deleted);
    return revision;
  }

  async revision(): Promise<number> {
    return this.rev;
  }

  watch(opts: WatchOptions): AsyncIterable<StoreEvent> {
    const since = opts.since;
    checkWatchFrom(since, this.rev, this.firstLogged - 1);
    const live = this.hub.open(opts.signal, opts.backlog);
    const db = this.db;
    const read = async function* () {
      for await (const raw of each(db.values({ gt: eventKey(since!), lt: EVENTS_END }))) yield JSON.parse(raw) as StoreEvent;
    };
    return replayThenLive(live, since ?? this.rev, since !== undefined ? () => this.recovery.iterate(read) : undefined);
  }

  onEvent(listener: (e: StoreEvent) => void): () => void {
    return this.hub.listen(listener);
  }

  async rewriteLoggedObjects(change: (obj: Envelope) => Envelope | undefined): Promise<number> {
    let rewritten = 0;
    let ops: { type: 'put'; key: string; value: string }[] = [];
    // the iterator reads a snapshot, so the writes below do not disturb it
    for await (const [key, raw] of this.db.iterator({ gte: eventKey(0), lt: EVENTS_END })) {
      const e = JSON.parse(raw) as StoreEvent;
      const object = change(e.object);
      if (!object) continue;
      ops.push({ type: 'put', key, value: eventText({ ...e, object }) });
      rewritten++;
      if (ops.length >= 500) {
        const page = ops;
        await this.writes.run(() => this.batch(page));
        ops = [];
      }
    }
    const rest = ops;
    if (rest.length) await this.writes.run(() => this.batch(rest));
    // LevelDB keeps overwritten values in its files until a compaction reaches them. (In Node,
    // `level` is classic-level, which can compact; its cross-platform types do not say so.)
    await (this.db as unknown as Compacting).compactRange('\u0000', `${HIGH}${HIGH}`);
    return rewritten;
  }

  /** Every commit is published before it returns (one process owns the directory). */
  async sync(): Promise<void> {}

  /** One process owns the directory, so an in-process queue per key is enough. */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(key, fn);
  }

  async createdRevision(k: ObjectKey): Promise<number | undefined> {
    // one read of both: the same LevelDB snapshot
    const [created, obj] = await this.recovery.read(() => this.db.getMany([createdKey(k), objectKey(k)]));
    if (obj === undefined) return undefined;
    return created === undefined ? 0 : Number(created);
  }

  dump(): AsyncIterable<DumpItem> {
    return this.recovery.iterate(() => this.history.dump());
  }

  /**
   * Every write to LevelDB, under `writes`: none while a failed one is not behind a re-open yet
   * (level-recovery.ts); a failure is answered as the recovery says (507 for a full disk).
   */
  private async batch(ops: BatchOp[]): Promise<void> {
    this.recovery.check();
    try {
      await this.db.batch(ops);
    } catch (e) {
      throw this.recovery.failed(e);
    }
  }

  /**
   * One atomic batch: the writes' ops, their numbered events, the trimmed log and the new
   * revision. Returns each write's revision (that of its last event).
   */
  private async commit(writes: readonly Planned[]): Promise<number[]> {
    const numbered: StoreEvent[] = [];
    const eventOps: BatchOp[] = [];
    const revisions: number[] = [];
    let rev = this.rev;
    for (const w of writes) {
      for (const e of w.events) {
        const event = { ...e, revision: ++rev } as StoreEvent;
        numbered.push(event);
        eventOps.push({ type: 'put', key: eventKey(rev), value: eventText(event) });
        if (e.type === 'ADDED') eventOps.push({ type: 'put', key: createdKey(keyOf(e.object)), value: String(rev) });
        else if (e.type === 'DELETED') eventOps.push({ type: 'del', key: createdKey(keyOf(e.object)) });
      }
      revisions.push(rev);
    }
    const last = rev;
    const firstKept = Math.max(this.firstLogged, last - this.eventLogSize + 1);
    const trim: BatchOp[] = [];
    for (let r = this.firstLogged; r < firstKept; r++) trim.push({ type: 'del', key: eventKey(r) });
    const ops = withMetadataRecords(writes.flatMap((w) => w.ops));
    ops.push(...this.searchIndex.commitOps());
    const audit = this.audit.number(writes.flatMap((w) => w.audit ?? []));
    await this.batch([...ops, ...eventOps, ...audit.ops, ...trim, { type: 'put', key: REVISION_KEY, value: String(last) }]);
    this.generation++;
    for (const op of ops) this.recent.delete(op.key);
    this.rev = last;
    this.firstLogged = firstKept;
    this.metadata.committed(numbered);
    this.hub.publish(numbered);
    this.audit.committed(audit.entries);
    return revisions;
  }
}

/**
 * Bytes a list reads from LevelDB per native call: classic-level's default (16 KB) made a list of
 * a hundred 10 KB dashboards sixty round trips to its thread pool.
 */
const SCAN_BYTES = 1024 * 1024;

/** How much object text (in characters) `recent` keeps. */
const RECENT_TEXT_CHARS = 16 * 1024 * 1024;

/**
 * Longest list read by key (index, then `recent` and one getMany): reading 10,000 values by key
 * took 1.3x the time of scanning them; longer lists scan.
 */
const KEYED_LIST_MAX = 2_000;

/** Objects a list may add to `recent` (a long list must not push out what GETs read). */
const RECENT_FROM_LIST = 200;

/** `ops` and, for each put or delete of an object, the same on its metadata record. */
function withMetadataRecords(ops: BatchOp[]): BatchOp[] {
  const out = [...ops];
  for (const op of ops) {
    if (!isObjectKey(op.key)) continue;
    const key = metadataRecordKey(op.key);
    out.push(op.type === 'put' ? { type: 'put', key, value: metadataText(op.value) } : { type: 'del', key });
  }
  return out;
}

/** JSON.stringify(e), with the object's JSON the write already made (`jsonOf`). */
function eventText(e: StoreEvent): string {
  return `{"type":${JSON.stringify(e.type)},"object":${jsonOf(e.object)},"revision":${e.revision}}`;
}
