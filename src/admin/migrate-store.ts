import { buildKindRegistry } from '../kinds/index.js';
import type { AuditStore, Envelope, HistoryStore, ManagerEntry, ObjectStore, Store } from '../storage/store.js';
import { SESSION_KIND } from '../auth/sessions.js';
import { API_TOKEN_KIND } from '../auth/api-tokens.js';
import { PROFILE_KIND } from '../profiles/profiles.js';

/** Versions kept while copying (the target's own retention applies to later writes). */
const COPY_ALL_VERSIONS = Number.MAX_SAFE_INTEGER;

/**
 * `dashplane migrate-store --from A --to B`: copies every object (every kind, sessions included)
 * with its version history and managers record, as stored: versions, timestamps and encrypted secrets unchanged (the
 * same encryption key keeps working). The target must be empty. Run it with the servers stopped.
 */
export async function migrateStore(from: Store, to: Store, log: (line: string) => void): Promise<{ objects: number; versions: number }> {
  await from.open();
  try {
    await to.open();
    try {
      const kinds = [
        ...buildKindRegistry()
          .all()
          .map((d) => d.kind),
        SESSION_KIND,
        API_TOKEN_KIND,
        PROFILE_KIND,
      ];
      await assertEmpty(to, kinds);
      let objects = 0;
      let versions = 0;
      for (const kind of kinds) {
        let n = 0;
        for (const obj of await from.list({ kind })) {
          versions += await copyOne(from, to, obj);
          n++;
        }
        if (n > 0) log(`${kind}: ${n}`);
        objects += n;
      }
      const audit = await copyAudit(from, to);
      if (audit > 0) log(`audit entries: ${audit}`);
      log(`done: ${objects} objects and ${versions} history entries copied`);
      return { objects, versions };
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

/** The target of a copy must hold nothing of these kinds. */
export async function assertEmpty(to: ObjectStore, kinds: readonly string[]): Promise<void> {
  for (const kind of kinds) {
    if ((await to.list({ kind, limit: 1 })).length > 0)
      throw new Error(`the target already holds ${kind} objects; copy into an empty store`);
  }
}

/** One kept history entry: the object as written at that version, by whom and through what. */
export interface Version {
  object: Envelope;
  updatedBy: string;
  /** Absent in entries written before managers were recorded. */
  manager?: string;
}

/** The audit log, oldest first, in the same order (the target numbers the entries anew). */
async function copyAudit(from: AuditStore, to: AuditStore): Promise<number> {
  let n = 0;
  for (let after = 0; ; ) {
    const page = await from.listAudit({ afterId: after, limit: 1000 });
    if (page.entries.length) await to.appendAudit(page.entries.map(({ id: _id, ...entry }) => entry));
    n += page.entries.length;
    const next = page.next ?? page.entries[page.entries.length - 1]?.id;
    if (next === undefined || (page.next === undefined && page.entries.length < 1000)) return n;
    after = next;
  }
}

/** One object with its history and managers record, read from `from` and written into `to`. */
async function copyOne(from: HistoryStore, to: ObjectStore, obj: Envelope): Promise<number> {
  const key = { kind: obj.kind, project: obj.metadata.project ?? '', name: obj.metadata.name };
  const versions: Version[] = [];
  for (const e of (await from.listVersions(key)).reverse()) {
    const version = await from.getVersion(key, e.version);
    if (version) versions.push({ object: version, updatedBy: e.updatedBy, ...(e.manager ? { manager: e.manager } : {}) });
  }
  return copyObject(to, obj, versions, await from.managers(key));
}

/**
 * Writes one object into `to` as it was stored: its history replayed oldest first (same versions,
 * authors, managers, timestamps), then the current state with its managers record. Returns how
 * many history entries were written.
 */
export async function copyObject(to: ObjectStore, obj: Envelope, versions: readonly Version[], managers?: ManagerEntry[]): Promise<number> {
  let last: Envelope | undefined;
  for (const v of versions) {
    const record = { writer: { by: v.updatedBy, manager: v.manager ?? 'unknown' }, history: { max: COPY_ALL_VERSIONS, continues: true } };
    if (last === undefined) await to.create(v.object, record);
    else await to.update(v.object, { expectedVersion: last.metadata.version, ...record });
    last = v.object;
  }
  const record = managers ? { managers } : {};
  if (last === undefined) await to.create(obj, record);
  // the stored object can differ from its newest entry (e.g. after secrets rotate); it is
  // written again with the record as the source has it
  else await to.update(obj, { expectedVersion: last.metadata.version, ...record });
  return versions.length;
}
