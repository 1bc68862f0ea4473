import { Level } from 'level';
import { readdirSync } from 'node:fs';
import { ApiError, alreadyExists, badRequest, conflict, notFound } from '../errors.js';
import { EventHub, replayThenLive } from './event-hub.js';
import { MetadataIndex } from './metadata-index.js';
import { KeyedMutex, Mutex } from './mutex.js';
import type { CreateOptions, DeleteOptions, DumpItem, Envelope, ManagerEntry, ListQuery, ObjectKey, Store, StoreEvent, StoredText, UpdateOptions, VersionEntry, Writer } from './store.js';
import { storedText } from './stored-text.js';
import type { AuditDraft, AuditNotice, AuditPage, AuditQuery } from './audit-types.js';
import { LevelAudit } from './level-audit.js';
import { jsonOf } from '../lib/json-of.js';
import { keyOf, recordWrite } from './store.js';

const SEP = '\x00';
/** Above every ASCII byte: the exclusive upper bound of a key prefix (names and kinds are ASCII). */
const HIGH = '\xff';
const REVISION_KEY = `m${SEP}revision`;
/** Present once every object's creation revision is recorded (see `recordCreations`). */
const CREATIONS_KEY = `m${SEP}creations`;

const objectKey = (k: ObjectKey) => `o${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
const scopePrefix = (kind: string, project: string) => `o${SEP}${kind}${SEP}${project}${SEP}`;
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const eventKey = (rev: number) => `e${SEP}${pad(rev, 16)}`;
const historyPrefix = (k: ObjectKey) => `h${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}${SEP}`;
const historyKey = (k: ObjectKey, version: number) => historyPrefix(k) + pad(version, 10);
/** The revision of the object's ADDED event (`createdRevision`). */
const createdKey = (k: ObjectKey) => `c${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/** The object's managers record (`managers`): kept apart from the object, whose stored text is what reads serve. */
const managersKey = (k: ObjectKey) => `w${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/**
 * A tombstone: the name of a deleted object whose history is kept (for restore). A create reads it
 * in the same getMany as its existence check, so a new name costs no history scan; only a name
 * with a tombstone has an old history to drop.
 */
const tombstoneKey = (k: ObjectKey) => `t${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/** Present once every kept history of a deleted object has its tombstone (see `recordTombstones`). */
const TOMBSTONES_KEY = `m${SEP}tombstones`;

type BatchOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };
interface HistoryRecord {
  object: Envelope;
  updatedBy: string;
  /** Absent in entries written before managers were recorded. */
  manager?: string;
}

/** Author of a write that names none. */
const NOBODY: Writer = { by: 'unknown', manager: 'unknown' };

/**
 * The embedded default store: LevelDB through `level`. One process owns the directory (LevelDB's
 * LOCK file); writes are committed by one writer, in groups (see `write`), each group one atomic
 * batch holding the objects, their managers records, history entries, events, creation revisions and
 * the new store-wide revision, so a crash never leaves half a write. The event log keeps the last `eventLogSize` events for watches that resume.
 */
export class LevelStore implements Store {
  private readonly db: Level<string, string>;
  private readonly writes = new Mutex();
  private readonly locks = new KeyedMutex();
  private readonly hub = new EventHub();
  /** Metadata of the kinds listed with metadataOnly so far, kept current by commit(). */
  private readonly index = new MetadataIndex();
  private readonly eventLogSize: number;
  private rev = 0;
  /** Lowest revision still in the event log. */
  private firstLogged = 1;
  /** Texts of objects read lately (a dashboard is read far more often than written); commit() drops what it changes. */
  private readonly recent = new RecentTexts(RECENT_TEXT_CHARS);
  /** Writes waiting for the writer (see `write`). */
  private readonly pending: PendingWrite[] = [];
  private draining = false;
  /** Bumped by every commit: a read that a commit overtook is not kept in `recent`. */
  private generation = 0;
  /** Set when a write failed for lack of space: health reports the store down until writes work again. */
  private writeFailure?: string;
  private readonly audit: LevelAudit;

  constructor(private readonly path: string, opts: { eventLogSize?: number } = {}) {
    this.db = new Level<string, string>(path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
    this.eventLogSize = opts.eventLogSize ?? 10_000;
    this.audit = new LevelAudit(this.db);
  }

  async open(): Promise<void> {
    refuseHeadlessDatabase(this.path);
    try {
      await this.db.open();
    } catch (e) {
      throw translateOpenError(e, this.path);
    }
    const stored = await this.db.get(REVISION_KEY);
    this.rev = stored === undefined ? 0 : Number(stored);
    const first = await this.db.keys({ gte: eventKey(0), lt: `e${SEP}${HIGH}`, limit: 1 }).all();
    this.firstLogged = first.length ? Number(first[0].slice(2)) : this.rev + 1;
    if ((await this.db.get(CREATIONS_KEY)) === undefined) await this.recordCreations();
    if ((await this.db.get(TOMBSTONES_KEY)) === undefined) await this.recordTombstones();
    await this.audit.open();
  }

  /**
   * Once, on a database written before tombstones were kept: a tombstone for every history whose
   * object no longer exists (a deleted object kept for restore). Without it, a create of that
   * name would not know to drop the old history.
   */
  private async recordTombstones(): Promise<void> {
    const orphans = new Set<string>();
    for await (const key of this.db.keys({ gte: `h${SEP}`, lt: `h${SEP}${HIGH}` })) {
      const [, kind, project, name] = key.split(SEP);
      orphans.add(objectKey({ kind, project, name }));
    }
    const live = await this.db.getMany([...orphans]);
    const ops: BatchOp[] = [...orphans].filter((_, i) => live[i] === undefined).map((k) => ({ type: 'put', key: `t${k.slice(1)}`, value: '' }));
    await this.db.batch([...ops, { type: 'put', key: TOMBSTONES_KEY, value: '1' }]);
  }

  /**
   * Once, on a database written before creation revisions were kept: the creation revision of
   * every object whose ADDED event is still in the log. The others were created before the oldest
   * retained event (`createdRevision` answers 0 for them).
   */
  private async recordCreations(): Promise<void> {
    const created = new Map<string, number>();
    for await (const raw of this.db.values({ gt: eventKey(0), lt: `e${SEP}${HIGH}` })) {
      const e = JSON.parse(raw) as StoreEvent;
      const key = createdKey(keyOf(e.object));
      if (e.type === 'ADDED') created.set(key, e.revision);
      else if (e.type === 'DELETED') created.delete(key);
    }
    const ops: BatchOp[] = [...created].map(([key, rev]) => ({ type: 'put', key, value: String(rev) }));
    await this.db.batch([...ops, { type: 'put', key: CREATIONS_KEY, value: '1' }]);
  }

  async close(): Promise<void> {
    await this.writes.run(() => this.db.close());
  }

  async ping(): Promise<void> {
    if (this.db.status !== 'open') throw new ApiError('Unavailable', 'the database is not open');
    if (this.writeFailure) throw new ApiError('Unavailable', `writes are failing: ${this.writeFailure}`);
    await this.db.get(REVISION_KEY);
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
    const raw = await this.db.get<string, Buffer>(k, { valueEncoding: 'buffer' });
    if (raw === undefined) return undefined;
    const found = storedText(raw);
    Object.freeze(found);
    Object.freeze(found.metadata);
    if (found.metadata.tags) Object.freeze(found.metadata.tags);
    // a commit that ran during the read may have changed it: keep only what no commit overtook
    if (generation === this.generation) this.recent.set(k, found);
    return found;
  }

  async list(q: ListQuery): Promise<Envelope[]> {
    if (q.metadataOnly) {
      // loaded under the write lock: no commit between the scan and the index taking events
      if (!this.index.has(q.kind)) await this.writes.run(async () => this.index.has(q.kind) || this.index.load(q.kind, await this.metadataOf(q.kind)));
      return this.index.list(q);
    }
    return (await this.scan(q, 'utf8')).map((t) => JSON.parse(t) as Envelope);
  }

  /** As bytes: a list's response is their concatenation, with no decoding and encoding again. */
  async listText(q: ListQuery): Promise<StoredText[]> {
    return (await this.scan(q, 'buffer')).map(storedText);
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
    if (q.project !== undefined || !q.namePrefix) return this.db.values<string, V>({ ...options, ...(q.limit !== undefined ? { limit: q.limit } : {}) }).all();
    const out: V[] = [];
    const limit = q.limit ?? Infinity;
    for await (const [key, raw] of this.db.iterator<string, V>(options)) {
      if (q.namePrefix && !key.slice(key.lastIndexOf(SEP) + 1).startsWith(q.namePrefix)) continue;
      out.push(raw);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Kind and metadata of every object of `kind`, in list order; bodies are dropped as they are read. */
  private async metadataOf(kind: string): Promise<Envelope[]> {
    const out: Envelope[] = [];
    const prefix = `o${SEP}${kind}${SEP}`;
    // Bytes, of which only the head is decoded and only the metadata parsed: parsing 100,000
    // bodies whole made hundreds of MB of garbage and grew the heap. classic-level's default
    // batch (16 KB): 4 MB ones grew it too.
    for await (const raw of this.db.values<string, Buffer>({ gte: prefix, lt: prefix + HIGH, valueEncoding: 'buffer' })) out.push({ kind, metadata: storedText(raw).metadata, spec: {} });
    return out;
  }

  snapshot(q: ListQuery): Promise<{ items: Envelope[]; revision: number }> {
    return this.writes.run(async () => ({ items: await this.list(q), revision: this.rev }));
  }

  create(obj: Envelope, opts: CreateOptions = {}): Promise<number> {
    const all = [obj, ...(opts.also ?? [])];
    const keys = all.map((o) => objectKey(keyOf(o)));
    return this.write(keys, false, async () => {
      // one read for every key: the new objects must not exist, the parent must; the tombstone
      // says whether the name has an old history
      const tombstone = tombstoneKey(keyOf(obj));
      const found = await this.db.getMany([...keys, tombstone, ...(opts.parent ? [objectKey(opts.parent)] : [])]);
      all.forEach((o, i) => {
        if (found[i] !== undefined) throw alreadyExists(`${o.kind} "${o.metadata.name}" already exists`);
      });
      if (opts.parent && found[all.length + 1] === undefined) {
        throw notFound(`${opts.parent.kind} "${opts.parent.name}" not found`);
      }
      const ops: BatchOp[] = all.map((o, i) => ({ type: 'put' as const, key: keys[i], value: jsonOf(o) }));
      all.forEach((o, i) => ops.push(...managersOps(o, i === 0 && opts.managers ? opts.managers : opts.writer ? recordWrite([], o, opts.writer) : undefined)));
      if (found[all.length] !== undefined) {
        ops.push({ type: 'del', key: tombstone });
        // a new object under an old name starts a new history, unless it restores the old one
        if (!opts.history?.continues) ops.push(...(await this.keysUnder(historyPrefix(keyOf(obj)))).map((key) => ({ type: 'del' as const, key })));
      }
      if (opts.history) ops.push(this.historyOp(obj, opts.writer), ...(opts.history.continues ? await this.retentionOps(obj, opts.history.max) : []));
      return { ops, events: all.map((o) => ({ type: 'ADDED' as const, object: o })), audit: opts.audit };
    });
  }

  update(obj: Envelope, opts: UpdateOptions): Promise<number> {
    const key = objectKey(keyOf(obj));
    return this.write([key], false, async () => {
      // the metadata only, not the 10 KB body; usually from `recent` (the caller has just read it)
      const current = await this.getText(keyOf(obj));
      if (current === undefined) throw notFound(`${obj.kind} "${obj.metadata.name}" not found`);
      const stored = current.metadata.version;
      if (stored !== opts.expectedVersion) {
        throw conflict(`${obj.kind} "${obj.metadata.name}" is at version ${stored}, not ${opts.expectedVersion}`);
      }
      const ops: BatchOp[] = [{ type: 'put', key, value: jsonOf(obj) }];
      if (opts.managers) ops.push(...managersOps(obj, opts.managers));
      else if (opts.writer) ops.push(...managersOps(obj, recordWrite(await this.managers(keyOf(obj)), obj, opts.writer)));
      if (opts.history) ops.push(this.historyOp(obj, opts.writer), ...(await this.retentionOps(obj, opts.history.max)));
      return { ops, events: [{ type: 'MODIFIED', object: obj }], audit: opts.audit };
    });
  }

  /** Deletes are committed alone: their scans of children must see every earlier write. */
  delete(k: ObjectKey, opts: DeleteOptions = {}): Promise<number> {
    const key = objectKey(k);
    return this.write([key], true, async () => {
      const current = await this.db.get(key);
      if (current === undefined) throw notFound(`${k.kind} "${k.name}" not found`);
      const obj = JSON.parse(current) as Envelope;
      if (opts.expectedVersion !== undefined && obj.metadata.version !== opts.expectedVersion) {
        throw conflict(`${k.kind} "${k.name}" is at version ${obj.metadata.version}, not ${opts.expectedVersion}`);
      }
      if (opts.expectedUpdatedAt !== undefined && obj.metadata.updatedAt !== opts.expectedUpdatedAt) {
        throw conflict(`${k.kind} "${k.name}" was written again at ${obj.metadata.updatedAt}`);
      }
      const ops: BatchOp[] = [];
      const events: Omit<StoreEvent, 'revision'>[] = [];
      for (const kind of opts.children?.kinds ?? []) {
        const project = opts.children!.project;
        const prefix = scopePrefix(kind, project);
        for await (const [childKey, raw] of this.db.iterator({ gte: prefix, lt: prefix + HIGH })) {
          ops.push({ type: 'del', key: childKey });
          events.push({ type: 'DELETED', object: JSON.parse(raw) as Envelope });
        }
        for (const prefix of [`h${SEP}${kind}${SEP}${project}${SEP}`, `w${SEP}${kind}${SEP}${project}${SEP}`, `t${SEP}${kind}${SEP}${project}${SEP}`]) {
          ops.push(...(await this.keysUnder(prefix)).map((hk) => ({ type: 'del' as const, key: hk })));
        }
      }
      ops.push({ type: 'del', key }, { type: 'del', key: managersKey(k) });
      // its history stays (restore brings it back): mark the name
      if ((await this.db.keys({ gte: historyPrefix(k), lt: historyPrefix(k) + HIGH, limit: 1 }).all()).length > 0) ops.push({ type: 'put', key: tombstoneKey(k), value: '' });
      events.push({ type: 'DELETED', object: obj });
      return { ops, events, audit: opts.audit };
    });
  }

  /**
   * Group commit: a write waits in `pending`; the writer takes every waiting write (up to
   * MAX_GROUP, stopping at a delete or at a key already in the group), plans them side by side
   * (their checks read the committed state, which no other write changes meanwhile) and commits
   * those that passed in one batch, in queue order. Concurrent creates thus share one LevelDB
   * write instead of queueing for one each.
   */
  private write(keys: readonly string[], alone: boolean, plan: () => Promise<Planned>): Promise<number> {
    return new Promise((resolve, reject) => {
      this.pending.push({ keys, alone, plan, resolve, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.pending.length > 0) await this.writes.run(() => this.commitGroup(this.takeGroup()));
    } finally {
      this.draining = false;
    }
  }

  private takeGroup(): PendingWrite[] {
    const group = [this.pending.shift()!];
    if (group[0].alone) return group;
    const keys = new Set(group[0].keys);
    while (group.length < MAX_GROUP && this.pending.length > 0) {
      const next = this.pending[0];
      if (next.alone || next.keys.some((k) => keys.has(k))) break;
      for (const k of next.keys) keys.add(k);
      group.push(this.pending.shift()!);
    }
    return group;
  }

  private async commitGroup(group: PendingWrite[]): Promise<void> {
    const outcomes = await Promise.allSettled(group.map((w) => w.plan()));
    const passed: { write: PendingWrite; planned: Planned }[] = [];
    outcomes.forEach((o, i) => (o.status === 'fulfilled' ? passed.push({ write: group[i], planned: o.value }) : group[i].reject(o.reason)));
    if (passed.length === 0) return;
    try {
      const revisions = await this.commit(passed.map((p) => p.planned));
      passed.forEach((p, i) => p.write.resolve(revisions[i]));
    } catch (e) {
      for (const p of passed) p.write.reject(e);
    }
  }

  async revision(): Promise<number> {
    return this.rev;
  }

  /** Entries of their own go through the writer too: they are numbered in commit order. */
  async appendAudit(entries: readonly AuditDraft[]): Promise<void> {
    if (entries.length) await this.write([], false, async () => ({ ops: [], events: [], audit: entries }));
  }

  listAudit(q: AuditQuery): Promise<AuditPage> {
    return this.audit.list(q);
  }

  async lastAuditId(): Promise<number> {
    return this.audit.lastId;
  }

  pruneAudit(before: string): Promise<number> {
    return this.audit.prune(before);
  }

  onAudit(listener: (n: AuditNotice) => void): () => void {
    return this.audit.listen(listener);
  }

  watch(opts: { since?: number; signal: AbortSignal }): AsyncIterable<StoreEvent> {
    const since = opts.since;
    if (since !== undefined && since > this.rev) throw badRequest(`revision ${since} is in the future (the store is at ${this.rev})`);
    if (since !== undefined && since < this.firstLogged - 1) {
      throw new ApiError('Gone', `revision ${since} is older than the retained event log (oldest ${this.firstLogged - 1}); list again and watch from the revision that list returns`);
    }
    const live = this.hub.open(opts.signal);
    const db = this.db;
    const replay = async function* () {
      for await (const raw of db.values({ gt: eventKey(since!), lt: `e${SEP}${HIGH}` })) yield JSON.parse(raw) as StoreEvent;
    };
    return replayThenLive(live, since ?? this.rev, since !== undefined ? replay : undefined);
  }

  onEvent(listener: (e: StoreEvent) => void): () => void {
    return this.hub.listen(listener);
  }

  /** Every commit is published before it returns (one process owns the directory). */
  async sync(): Promise<void> {}

  /** One process owns the directory, so an in-process queue per key is enough. */
  exclusive<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.locks.run(key, fn);
  }

  async createdRevision(k: ObjectKey): Promise<number | undefined> {
    // one read of both: the same LevelDB snapshot
    const [created, obj] = await this.db.getMany([createdKey(k), objectKey(k)]);
    if (obj === undefined) return undefined;
    return created === undefined ? 0 : Number(created);
  }

  async listVersions(k: ObjectKey): Promise<VersionEntry[]> {
    const prefix = historyPrefix(k);
    const out: VersionEntry[] = [];
    for await (const raw of this.db.values({ gte: prefix, lt: prefix + HIGH, reverse: true })) {
      const r = JSON.parse(raw) as HistoryRecord;
      out.push({ version: r.object.metadata.version, updatedAt: r.object.metadata.updatedAt, updatedBy: r.updatedBy, manager: r.manager ?? 'unknown' });
    }
    return out;
  }

  async managers(k: ObjectKey): Promise<ManagerEntry[]> {
    const raw = await this.db.get(managersKey(k));
    return raw === undefined ? [] : (JSON.parse(raw) as ManagerEntry[]);
  }

  /**
   * One explicit LevelDB snapshot, read by two iterators in step: objects (`o` keys) and history
   * entries (`h` keys) sort by the same (kind, project, name), so each object's entries are met
   * just before it and those of deleted objects are skipped.
   */
  async *dump(): AsyncIterable<DumpItem> {
    const snapshot = this.db.snapshot();
    try {
      const revision = await this.db.get(REVISION_KEY, { snapshot });
      yield { type: 'revision', revision: revision === undefined ? 0 : Number(revision) };
      const history = this.db.iterator({ gte: `h${SEP}`, lt: `h${SEP}${HIGH}`, snapshot });
      try {
        let entry = await history.next();
        for await (const [key, raw] of this.db.iterator({ gte: `o${SEP}`, lt: `o${SEP}${HIGH}`, snapshot })) {
          const id = key.slice(2);
          // history keys: h SEP kind SEP project SEP name SEP version; compare their (kind, project, name)
          while (entry !== undefined && entry[0].slice(2, entry[0].lastIndexOf(SEP)) < id) entry = await history.next();
          while (entry !== undefined && entry[0].slice(2, entry[0].lastIndexOf(SEP)) === id) {
            const r = JSON.parse(entry[1]) as HistoryRecord;
            yield { type: 'version', updatedBy: r.updatedBy, ...(r.manager ? { manager: r.manager } : {}), object: r.object };
            entry = await history.next();
          }
          const managers = await this.db.get(managersKey({ kind: id.split(SEP)[0], project: id.split(SEP)[1], name: id.split(SEP)[2] }), { snapshot });
          yield { type: 'object', object: JSON.parse(raw) as Envelope, managers: managers === undefined ? [] : (JSON.parse(managers) as ManagerEntry[]) };
        }
      } finally {
        await history.close();
      }
    } finally {
      await snapshot.close();
    }
  }

  async getVersion(k: ObjectKey, version: number): Promise<Envelope | undefined> {
    const raw = await this.db.get(historyKey(k, version));
    return raw === undefined ? undefined : (JSON.parse(raw) as HistoryRecord).object;
  }

  /** The object's JSON is made once per write (`jsonOf`), not once per copy. */
  private historyOp(obj: Envelope, writer: Writer = NOBODY): BatchOp {
    const record = `{"object":${jsonOf(obj)},"updatedBy":${JSON.stringify(writer.by)},"manager":${JSON.stringify(writer.manager)}}`; // a HistoryRecord
    return { type: 'put', key: historyKey(keyOf(obj), obj.metadata.version), value: record };
  }

  /** Keeps the `max` versions before the one being written (and that one). */
  private async retentionOps(obj: Envelope, max: number): Promise<BatchOp[]> {
    const keep = obj.metadata.version - max;
    if (keep <= 0) return [];
    const prefix = historyPrefix(keyOf(obj));
    return (await this.db.keys({ gte: prefix, lt: prefix + pad(keep, 10) }).all()).map((key) => ({ type: 'del' as const, key }));
  }

  private async keysUnder(prefix: string): Promise<string[]> {
    return this.db.keys({ gte: prefix, lt: prefix + HIGH }).all();
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
    const ops = writes.flatMap((w) => w.ops);
    const audit = this.audit.number(writes.flatMap((w) => w.audit ?? []));
    try {
      await this.db.batch([...ops, ...eventOps, ...audit.ops, ...trim, { type: 'put', key: REVISION_KEY, value: String(last) }]);
    } catch (e) {
      const err = translateWriteError(e);
      if (err instanceof ApiError) this.writeFailure = err.message;
      throw err;
    }
    this.writeFailure = undefined;
    this.generation++;
    for (const op of ops) this.recent.delete(op.key);
    this.rev = last;
    this.firstLogged = firstKept;
    for (const e of numbered) this.index.apply(e);
    this.hub.publish(numbered);
    this.audit.committed(audit.entries);
    return revisions;
  }
}

/** Stores (or, without one, leaves alone) the managers record of `obj`. */
function managersOps(obj: Envelope, record: readonly ManagerEntry[] | undefined): BatchOp[] {
  return record ? [{ type: 'put', key: managersKey(keyOf(obj)), value: JSON.stringify(record) }] : [];
}

/** Most writes committed in one batch. */
const MAX_GROUP = 64;

/** What a write puts and deletes, and the events it makes (before revisions are assigned). */
interface Planned {
  ops: BatchOp[];
  events: Omit<StoreEvent, 'revision'>[];
  /** Audit entries committed with it (numbered at commit). */
  audit?: readonly AuditDraft[];
}

interface PendingWrite {
  /** The object keys it writes: one group never holds two writes of a key. */
  keys: readonly string[];
  /** Committed in a group of its own. */
  alone: boolean;
  plan: () => Promise<Planned>;
  resolve: (revision: number) => void;
  reject: (e: unknown) => void;
}

/**
 * Bytes a list reads from LevelDB per native call: classic-level's default (16 KB) made a list of
 * a hundred 10 KB dashboards sixty round trips to its thread pool.
 */
const SCAN_BYTES = 1024 * 1024;

/** How much object text (in characters) `recent` keeps. */
const RECENT_TEXT_CHARS = 16 * 1024 * 1024;

/** Stored texts by key, least recently used dropped first once their total length passes `maxChars`. */
class RecentTexts {
  private readonly map = new Map<string, StoredText>();
  private chars = 0;

  constructor(private readonly maxChars: number) {}

  get(key: string): StoredText | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }

  set(key: string, value: StoredText): void {
    if (value.text.length > this.maxChars / 16) return; // a few huge objects must not empty it
    this.delete(key);
    this.map.set(key, value);
    this.chars += value.text.length;
    while (this.chars > this.maxChars) this.delete(this.map.keys().next().value!);
  }

  delete(key: string): void {
    const v = this.map.get(key);
    if (v === undefined) return;
    this.map.delete(key);
    this.chars -= v.text.length;
  }
}

/** JSON.stringify(e), with the object's JSON the write already made (`jsonOf`). */
function eventText(e: StoreEvent): string {
  return `{"type":${JSON.stringify(e.type)},"object":${jsonOf(e.object)},"revision":${e.revision}}`;
}

/** A full disk is the client's 507, not an anonymous 500; nothing was written. */
function translateWriteError(e: unknown): Error {
  const text = `${(e as { code?: string }).code ?? ''} ${(e as Error).message ?? ''} ${(e as { cause?: Error }).cause?.message ?? ''}`;
  if (/no space|ENOSPC|file too large|EFBIG|disk full/i.test(text)) {
    return new ApiError('InsufficientStorage', 'the server\'s disk is full: nothing was written; free space and retry');
  }
  return e as Error;
}

/**
 * LevelDB files without CURRENT mean a damaged database: opening it would silently start empty
 * (and discard the old tables). Refuse instead.
 */
function refuseHeadlessDatabase(path: string): void {
  let files: string[];
  try {
    files = readdirSync(path);
  } catch {
    return; // a new directory
  }
  if (!files.includes('CURRENT') && files.some((f) => /^(MANIFEST-\d+|\d+\.(ldb|log|sst))$/.test(f))) {
    throw new Error(`the data directory ${path} holds LevelDB files but no CURRENT file: it is damaged; restore it from a backup. dashplane never repairs or empties it automatically`);
  }
}

function translateOpenError(e: unknown, path: string): Error {
  const err = e as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  const code = err.cause?.code ?? err.code;
  const detail = err.cause?.message ?? err.message ?? String(e);
  if (code === 'LEVEL_LOCKED' || /lock/i.test(detail)) {
    return new Error(`the data directory ${path} is in use by another dashplane process (LevelDB lock held); stop it or use another database.level.path`);
  }
  if (code === 'LEVEL_CORRUPTION' || /corrupt/i.test(detail)) {
    return new Error(`the data directory ${path} is corrupted (${detail}); restore it from a backup. dashplane never repairs it automatically`);
  }
  return new Error(`cannot open the data directory ${path}: ${detail}`);
}
