import type { Level } from 'level';
import { jsonOf } from '../lib/json-of.js';
import { type BatchOp, HIGH, SEP, historyKey, historyOwner, historyPrefix, managersKey, pad, REVISION_KEY } from './level-keys.js';
import { each, readAll } from './level-read.js';
import type { DeletedEntry, DumpItem, Envelope, HistoryStore, ManagerEntry, ObjectKey, VersionEntry, Writer } from './store.js';
import { keyOf } from './store.js';
import { displayTitle } from './store-rules.js';

/** A history entry as LevelStore keeps it. */
interface HistoryRecord {
  object: Envelope;
  updatedBy: string;
  /** Absent in entries written before managers were recorded. */
  manager?: string;
}

/**
 * LevelStore's history entries (`h` keys) and managers records (`w` keys): the batch operations a
 * write adds for them, their reads (its HistoryStore part, each read as the store's reads run:
 * `read`), and the dump that reads them with the objects.
 */
export class LevelHistory implements HistoryStore {
  constructor(
    private readonly db: Level<string, string>,
    private readonly read: <T>(fn: () => Promise<T>) => Promise<T>,
  ) {}

  /** The entry of a write of `obj` by `writer`; the object's JSON is made once per write (`jsonOf`), not once per copy. */
  entryOp(obj: Envelope, writer: Writer): BatchOp {
    const record = `{"object":${jsonOf(obj)},"updatedBy":${JSON.stringify(writer.by)},"manager":${JSON.stringify(writer.manager)}}`; // a HistoryRecord
    return { type: 'put', key: historyKey(keyOf(obj), obj.metadata.version), value: record };
  }

  /** Drops the entries of `key` below version `below` (every entry without it). */
  async dropOps(key: ObjectKey, below?: number): Promise<BatchOp[]> {
    const prefix = historyPrefix(key);
    const keys = await readAll(this.db.keys({ gte: prefix, lt: below === undefined ? prefix + HIGH : prefix + pad(below, 10) }));
    return keys.map((k) => ({ type: 'del' as const, key: k }));
  }

  /** Whether `key` has any entry. */
  async has(key: ObjectKey): Promise<boolean> {
    const prefix = historyPrefix(key);
    return (await this.db.keys({ gte: prefix, lt: prefix + HIGH, limit: 1 }).all()).length > 0;
  }

  listVersions(k: ObjectKey): Promise<VersionEntry[]> {
    return this.read(() => this.versionsOf(k));
  }

  private async versionsOf(k: ObjectKey): Promise<VersionEntry[]> {
    const prefix = historyPrefix(k);
    const out: VersionEntry[] = [];
    for await (const raw of each(this.db.values({ gte: prefix, lt: prefix + HIGH, reverse: true }))) {
      const r = JSON.parse(raw) as HistoryRecord;
      out.push({
        version: r.object.metadata.version,
        updatedAt: r.object.metadata.updatedAt,
        updatedBy: r.updatedBy,
        manager: r.manager ?? 'unknown',
      });
    }
    return out;
  }

  getVersion(k: ObjectKey, version: number): Promise<Envelope | undefined> {
    return this.read(async () => {
      const raw = await this.db.get(historyKey(k, version));
      return raw === undefined ? undefined : (JSON.parse(raw) as HistoryRecord).object;
    });
  }

  /** Stores (or, without one, leaves alone) the managers record of `obj`. */
  managersOps(obj: Envelope, record: readonly ManagerEntry[] | undefined): BatchOp[] {
    return record ? [{ type: 'put', key: managersKey(keyOf(obj)), value: JSON.stringify(record) }] : [];
  }

  /** Deleted objects of a scope whose history is kept (their names have a tombstone), with their last entry. */
  listDeleted(q: { kind: string; project: string }): Promise<DeletedEntry[]> {
    return this.read(() => this.deletedIn(q));
  }

  private async deletedIn(q: { kind: string; project: string }): Promise<DeletedEntry[]> {
    const prefix = `t${SEP}${q.kind}${SEP}${q.project}${SEP}`;
    const out: DeletedEntry[] = [];
    for await (const key of each(this.db.keys({ gte: prefix, lt: prefix + HIGH }))) {
      const name = key.slice(prefix.length);
      const k = { kind: q.kind, project: q.project, name };
      const [last] = await this.db.values({ gte: historyPrefix(k), lt: historyPrefix(k) + HIGH, reverse: true, limit: 1 }).all();
      if (last === undefined) continue;
      const r = JSON.parse(last) as HistoryRecord;
      const title = displayTitle(r.object);
      out.push({
        name,
        version: r.object.metadata.version,
        updatedAt: r.object.metadata.updatedAt,
        updatedBy: r.updatedBy,
        manager: r.manager ?? 'unknown',
        ...(title ? { title } : {}),
      });
    }
    return out;
  }

  managers(k: ObjectKey): Promise<ManagerEntry[]> {
    return this.read(() => this.managersRecord(k));
  }

  /** `managers`, inside a write (under the write lock, not as a read). */
  async managersRecord(k: ObjectKey): Promise<ManagerEntry[]> {
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
          while (entry !== undefined && historyOwner(entry[0]) < id) entry = await history.next();
          while (entry !== undefined && historyOwner(entry[0]) === id) {
            const r = JSON.parse(entry[1]) as HistoryRecord;
            yield { type: 'version', updatedBy: r.updatedBy, ...(r.manager ? { manager: r.manager } : {}), object: r.object };
            entry = await history.next();
          }
          const [kind, project, name] = id.split(SEP);
          const managers = await this.db.get(managersKey({ kind, project, name }), { snapshot });
          yield {
            type: 'object',
            object: JSON.parse(raw) as Envelope,
            managers: managers === undefined ? [] : (JSON.parse(managers) as ManagerEntry[]),
          };
        }
      } finally {
        await history.close();
      }
    } finally {
      await snapshot.close();
    }
  }
}
