import type { ResolvedConfig } from '../config.js';
import { loadKeyRing } from '../auth/keys.js';
import { buildKindRegistry } from '../kinds/index.js';
import { setPathIfParentExists } from '../lib/object-path.js';
import { assertSharedKey, openStore } from './open-store.js';
import { SecretBox } from '../secrets/secret-box.js';
import { locationOf, sealedValues } from '../secrets/sealing.js';

/**
 * `dashplane secrets rotate`: re-encrypts every stored sensitive value that was written with an
 * older key, using the primary key. Run it with the server stopped (the store is locked while it
 * runs); objects keep their version. Afterwards the old key can leave previous_encryption_keys.
 * It works on the store the configuration names, LevelDB or PostgreSQL (with replicas: stop
 * them all first).
 */
export async function rotateSecrets(config: Readonly<ResolvedConfig>, log: (line: string) => void): Promise<{ objects: number; values: number }> {
  assertSharedKey(config);
  const dataDir = config.database.level.path;
  const store = openStore(config);
  await store.open();
  try {
    const security = config.security;
    const keys = loadKeyRing({ key: security.encryption_key, keyFile: security.encryption_key_file, previous: security.previous_encryption_keys, dataDir });
    const box = new SecretBox(keys.master, keys.previous);
    log(`primary key ${box.primaryKeyId} (from ${keys.source})`);
    let objects = 0;
    let values = 0;
    let scanned = 0;
    for (const d of buildKindRegistry()
      .all()
      .filter((k) => k.encrypted?.length)) {
      for (const obj of await store.list({ kind: d.kind })) {
        scanned++;
        const stale = sealedValues(d, obj).filter((v) => SecretBox.keyIdIn(v.value) !== box.primaryKeyId);
        if (stale.length === 0) continue;
        for (const { path, value } of stale) {
          const where = locationOf(obj, path);
          setPathIfParentExists(obj, path, box.encrypt(box.decrypt(value, where), where));
        }
        await store.update(obj, { expectedVersion: obj.metadata.version });
        objects++;
        values += stale.length;
        if (objects % 100 === 0) log(`re-encrypted ${objects} objects so far`);
      }
    }
    log(`done: ${values} values in ${objects} of ${scanned} objects re-encrypted with key ${box.primaryKeyId}`);
    return { objects, values };
  } finally {
    await store.close();
  }
}
