import { buildKindRegistry } from '../kinds/index.js';
import type { Envelope, Store } from './store.js';
import { LevelStore } from './level-store.js';
import { PostgresStore } from './postgres-store.js';
import { SESSION_KIND } from '../auth/sessions.js';
import { PROFILE_KIND } from '../profiles/profiles.js';

/** Versions kept while copying (the target's own retention applies to later writes). */
const COPY_ALL_VERSIONS = Number.MAX_SAFE_INTEGER;

/** `level:<path>` or a `postgres://` URL. */
export function storeFromUri(uri: string): Store {
  if (uri.startsWith('level:')) return new LevelStore(uri.slice('level:'.length));
  if (/^postgres(ql)?:\/\//.test(uri)) return new PostgresStore({ url: uri });
  throw new Error(`"${uri}" is neither level:<directory> nor postgres://user@host:port/database`);
}

/**
 * `dashplane migrate-store --from A --to B`: copies every object (every kind, sessions included)
 * with its version history, as stored: versions, timestamps and encrypted secrets unchanged (the
 * same encryption key keeps working). The target must be empty. Run it with the servers stopped.
 */
export async function migrateStore(from: Store, to: Store, log: (line: string) => void): Promise<{ objects: number; versions: number }> {
  await from.open();
  try {
    await to.open();
    try {
      const kinds = [...buildKindRegistry().all().map((d) => d.kind), SESSION_KIND, PROFILE_KIND];
      for (const kind of kinds) {
        if ((await to.list({ kind, limit: 1 })).length > 0) throw new Error(`the target already holds ${kind} objects; migrate into an empty store`);
      }
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
      log(`done: ${objects} objects and ${versions} history entries copied`);
      return { objects, versions };
    } finally {
      await to.close();
    }
  } finally {
    await from.close();
  }
}

/** One object: its history replayed oldest first (same versions), then the current state. */
async function copyOne(from: Store, to: Store, obj: Envelope): Promise<number> {
  const key = { kind: obj.kind, project: obj.metadata.project ?? '', name: obj.metadata.name };
  const entries = (await from.listVersions(key)).reverse();
  let last: Envelope | undefined;
  let copied = 0;
  for (const e of entries) {
    const version = await from.getVersion(key, e.version);
    if (!version) continue;
    const history = { by: e.updatedBy, max: COPY_ALL_VERSIONS, continues: true };
    if (last === undefined) await to.create(version, { history });
    else await to.update(version, { expectedVersion: last.metadata.version, history });
    last = version;
    copied++;
  }
  if (last === undefined) await to.create(obj);
  // the stored object can differ from its newest entry (e.g. after secrets rotate)
  else if (JSON.stringify(last) !== JSON.stringify(obj)) await to.update(obj, { expectedVersion: last.metadata.version });
  return copied;
}
