import { Level } from 'level';
import { ApiError, alreadyExists, conflict, notFound } from '../errors.js';
import { EventHub } from './event-hub.js';
import { Mutex } from './mutex.js';
import type { DeleteOptions, Envelope, ListQuery, ObjectKey, Store, StoreEvent } from './store.js';
import { keyOf } from './store.js';

const SEP = '\x00';
/** Above every ASCII byte: the exclusive upper bound of a key prefix (names and kinds are ASCII). */
const HIGH = '\xff';
const REVISION_KEY = `m${SEP}revision`;

const objectKey = (k: ObjectKey) => `o${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
const scopePrefix = (kind: string, project: string) => `o${SEP}${kind}${SEP}${project}${SEP}`;

type BatchOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };

/**
 * The embedded default store: LevelDB through `level`. One process owns the directory (LevelDB's
 * LOCK file); writes are serialised by a mutex and each is one atomic batch that also advances
 * the store-wide revision, so a crash never leaves half a write.
 */
export class LevelStore implements Store {
  private readonly db: Level<string, string>;
  private readonly writes = new Mutex();
  private readonly hub = new EventHub();
  private rev = 0;

  constructor(private readonly path: string) {
    this.db = new Level<string, string>(path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  }

  async open(): Promise<void> {
    try {
      await this.db.open();
    } catch (e) {
      throw translateOpenError(e, this.path);
    }
    const stored = await this.db.get(REVISION_KEY);
    this.rev = stored === undefined ? 0 : Number(stored);
  }

  async close(): Promise<void> {
    await this.writes.run(() => this.db.close());
  }

  async ping(): Promise<void> {
    if (this.db.status !== 'open') throw new ApiError('Unavailable', 'the database is not open');
    await this.db.get(REVISION_KEY);
  }

  async get(key: ObjectKey): Promise<Envelope | undefined> {
    const raw = await this.db.get(objectKey(key));
    return raw === undefined ? undefined : (JSON.parse(raw) as Envelope);
  }

  async list(q: ListQuery): Promise<Envelope[]> {
    const base = q.project === undefined ? `o${SEP}${q.kind}${SEP}` : scopePrefix(q.kind, q.project);
    const from = q.project !== undefined && q.namePrefix ? base + q.namePrefix : base;
    const range: { gte?: string; gt?: string; lt: string } = { lt: from + HIGH };
    const afterKey = q.after ? objectKey({ kind: q.kind, project: q.after.project, name: q.after.name }) : undefined;
    if (afterKey !== undefined && afterKey >= from) range.gt = afterKey;
    else range.gte = from;
    const out: Envelope[] = [];
    const limit = q.limit ?? Infinity;
    for await (const raw of this.db.values(range)) {
      const obj = JSON.parse(raw) as Envelope;
      if (q.namePrefix && !obj.metadata.name.startsWith(q.namePrefix)) continue;
      out.push(obj);
      if (out.length >= limit) break;
    }
    return out;
  }

  create(obj: Envelope, opts: { parent?: ObjectKey; also?: readonly Envelope[] } = {}): Promise<number> {
    return this.writes.run(async () => {
      const all = [obj, ...(opts.also ?? [])];
      for (const o of all) {
        if ((await this.db.get(objectKey(keyOf(o)))) !== undefined) {
          throw alreadyExists(`${o.kind} "${o.metadata.name}" already exists`);
        }
      }
      if (opts.parent && (await this.db.get(objectKey(opts.parent))) === undefined) {
        throw notFound(`${opts.parent.kind} "${opts.parent.name}" not found`);
      }
      return this.commit(
        all.map((o) => ({ type: 'put' as const, key: objectKey(keyOf(o)), value: JSON.stringify(o) })),
        all.map((o) => ({ type: 'ADDED' as const, object: o })),
      );
    });
  }

  update(obj: Envelope, opts: { expectedVersion: number }): Promise<number> {
    return this.writes.run(async () => {
      const key = objectKey(keyOf(obj));
      const current = await this.db.get(key);
      if (current === undefined) throw notFound(`${obj.kind} "${obj.metadata.name}" not found`);
      const stored = (JSON.parse(current) as Envelope).metadata.version;
      if (stored !== opts.expectedVersion) {
        throw conflict(`${obj.kind} "${obj.metadata.name}" is at version ${stored}, not ${opts.expectedVersion}`);
      }
      return this.commit([{ type: 'put', key, value: JSON.stringify(obj) }], [{ type: 'MODIFIED', object: obj }]);
    });
  }

  delete(k: ObjectKey, opts: DeleteOptions = {}): Promise<number> {
    return this.writes.run(async () => {
      const key = objectKey(k);
      const current = await this.db.get(key);
      if (current === undefined) throw notFound(`${k.kind} "${k.name}" not found`);
      const obj = JSON.parse(current) as Envelope;
      if (opts.expectedVersion !== undefined && obj.metadata.version !== opts.expectedVersion) {
        throw conflict(`${k.kind} "${k.name}" is at version ${obj.metadata.version}, not ${opts.expectedVersion}`);
      }
      const ops: BatchOp[] = [];
      const events: Omit<StoreEvent, 'revision'>[] = [];
      for (const kind of opts.children?.kinds ?? []) {
        const prefix = scopePrefix(kind, opts.children!.project);
        for await (const [childKey, raw] of this.db.iterator({ gte: prefix, lt: prefix + HIGH })) {
          ops.push({ type: 'del', key: childKey });
          events.push({ type: 'DELETED', object: JSON.parse(raw) as Envelope });
        }
      }
      ops.push({ type: 'del', key });
      events.push({ type: 'DELETED', object: obj });
      return this.commit(ops, events);
    });
  }

  async revision(): Promise<number> {
    return this.rev;
  }

  watch(opts: { since?: number; signal: AbortSignal }): AsyncIterable<StoreEvent> {
    if (opts.since !== undefined && opts.since < this.rev) {
      throw new ApiError('Gone', `revision ${opts.since} is no longer available; list again and watch from the returned revision`);
    }
    return this.hub.subscribe(opts.signal);
  }

  /** One atomic batch: the ops plus the new revision; events are numbered and published after. */
  private async commit(ops: BatchOp[], events: Omit<StoreEvent, 'revision'>[]): Promise<number> {
    const first = this.rev + 1;
    const last = this.rev + events.length;
    await this.db.batch([...ops, { type: 'put', key: REVISION_KEY, value: String(last) }]);
    this.rev = last;
    this.hub.publish(events.map((e, i) => ({ ...e, revision: first + i })));
    return last;
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
