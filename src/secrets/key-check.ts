import type { KindRegistry } from '../kinds/registry.js';
import type { ObjectStore } from '../storage/store.js';
import { SecretBox } from './secret-box.js';
import { locationOf, sealedValues } from './sealing.js';

/**
 * At start: every key id found in stored secrets must be configured and decrypt at least one of
 * its values; otherwise the key is missing or wrong and the server must not start (it would
 * serve secrets it cannot use). A single damaged value does not stop the server: it fails where
 * it is used. Returns the number of values that did not decrypt with a working key.
 */
export async function checkSecretKeys(store: ObjectStore, registry: KindRegistry, box: SecretBox): Promise<number> {
  const working = new Set<string>();
  const failing = new Map<string, { where: string; reason: string; count: number }>();
  for (const d of registry.all().filter((k) => k.encrypted?.length)) {
    for (const obj of await store.list({ kind: d.kind })) {
      for (const { path, value } of sealedValues(d, obj)) {
        const id = SecretBox.keyIdIn(value)!;
        if (working.has(id) && !failing.has(id)) continue;
        try {
          box.decrypt(value, locationOf(obj, path));
          working.add(id);
        } catch (e) {
          const f = failing.get(id);
          if (f) f.count++;
          else
            failing.set(id, {
              where: `${d.kind} "${obj.metadata.name}"${obj.metadata.project ? ` in project "${obj.metadata.project}"` : ''}`,
              reason: (e as Error).message,
              count: 1,
            });
        }
      }
    }
  }
  let damaged = 0;
  for (const [id, f] of failing) {
    if (!working.has(id)) {
      throw new Error(
        `stored secrets cannot be decrypted with the configured keys (${f.where}: ${f.reason}). ` +
          'Configure the key they were written with (security.encryption_key, encryption_key_file, DASHPLANE_ENCRYPTION_KEY or security.previous_encryption_keys); refusing to start',
      );
    }
    damaged += f.count;
  }
  return damaged;
}
