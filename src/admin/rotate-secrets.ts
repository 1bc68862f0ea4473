import type { ResolvedConfig } from '../config.js';
import { loadKeyRing } from '../auth/keys.js';
import { buildKindRegistry } from '../kinds/index.js';
import { setPathIfParentExists } from '../lib/object-path.js';
import { assertSharedKey, openStore } from './open-store.js';
import { SecretBox } from '../secrets/secret-box.js';
import { locationOf, sealedValues } from '../secrets/sealing.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope } from '../storage/store.js';

/** What an event's copy of a value sealed with a key no longer configured becomes (masked when served anyway). */
const LOST = '<secret>';

/**
 * `dashplane secrets rotate`: re-encrypts every stored sensitive value that was written with an
 * older key, using the primary key. Run it with the server stopped (the store is locked while it
 * runs); objects keep their version. The copies of those values that the event log keeps are
 * re-encrypted too, and a LevelDB store is then compacted, so no value sealed with an older key
 * remains. Afterwards the old key can leave previous_encryption_keys.
 * It works on the store the configuration names, LevelDB or PostgreSQL (with replicas: stop
 * them all first).
 */
export async function rotateSecrets(
  config: Readonly<ResolvedConfig>,
  log: (line: string) => void,
): Promise<{ objects: number; values: number }> {
  assertSharedKey(config);
  const dataDir = config.database.level.path;
  const store = openStore(config);
  await store.open();
  try {
    const security = config.security;
    const keys = loadKeyRing({
      key: security.encryption_key,
      keyFile: security.encryption_key_file,
      previous: security.previous_encryption_keys,
      dataDir,
    });
    const box = new SecretBox(keys.master, keys.previous);
    log(`primary key ${box.primaryKeyId} (from ${keys.source})`);
    let objects = 0;
    let values = 0;
    let scanned = 0;
    const kinds = new Map(
      buildKindRegistry()
        .all()
        .filter((k) => k.encrypted?.length)
        .map((k) => [k.kind, k]),
    );
    /**
     * Re-seals `obj`'s values sealed with another key than the primary, in place; how many. With
     * `lost`, a value sealed with a key that is no longer configured is replaced by `lost` sealed
     * with the primary key (instead of failing).
     */
    const reseal = (d: KindDescriptor, obj: Envelope, lost?: string): number => {
      const stale = sealedValues(d, obj).filter((v) => SecretBox.keyIdIn(v.value) !== box.primaryKeyId);
      for (const { path, value } of stale) {
        const where = locationOf(obj, path);
        let plain: string;
        try {
          plain = box.decrypt(value, where);
        } catch (e) {
          if (lost === undefined) throw e;
          plain = lost;
          unreadable++;
        }
        setPathIfParentExists(obj, path, box.encrypt(plain, where));
      }
      return stale.length;
    };
    let unreadable = 0;
    for (const d of kinds.values()) {
      for (const obj of await store.list({ kind: d.kind })) {
        scanned++;
        const n = reseal(d, obj);
        if (n === 0) continue;
        await store.update(obj, { expectedVersion: obj.metadata.version });
        objects++;
        values += n;
        if (objects % 100 === 0) log(`re-encrypted ${objects} objects so far`);
      }
    }
    // The event log keeps each write's object (for watches resumed from a revision): its copies of
    // secrets are re-sealed too, so no value sealed with a retired key stays in the store. Those
    // copies are only ever served masked, so one sealed with a key already removed from the
    // configuration (by a rotation before this step existed) is replaced by a placeholder.
    const events = await store.rewriteLoggedObjects((obj) => {
      const d = kinds.get(obj.kind);
      if (!d) return undefined;
      const copy = structuredClone(obj);
      return reseal(d, copy, LOST) ? copy : undefined;
    });
    if (events)
      log(
        `re-encrypted the copies of secrets in ${events} retained events${unreadable ? ` (${unreadable} sealed with keys no longer configured were replaced)` : ''}`,
      );
    log(`done: ${values} values in ${objects} of ${scanned} objects re-encrypted with key ${box.primaryKeyId}`);
    return { objects, values };
  } finally {
    await store.close();
  }
}
