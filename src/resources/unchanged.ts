import type { HookContext, KindDescriptor } from '../kinds/descriptor.js';
import { SecretBox } from '../secrets/secret-box.js';
import { locationOf } from '../secrets/sealing.js';
import type { Envelope } from '../storage/store.js';
import { getPath, setPathIfParentExists } from '../lib/object-path.js';
import { sameJson } from '../lib/same-json.js';

/** Metadata the server owns: a write that differs only there changes nothing. */
const SERVER_OWNED = ['createdAt', 'updatedAt', 'version'];

/**
 * Gives every sensitive field of `obj` that holds what `current` stores the stored form itself
 * (the ciphertext, the password hash): then sealing and hashing keep it as it is, no session
 * bound to a password ends, and the two objects compare equal. A value is the same when it is the
 * stored form already (a "<secret>" sent back and restored), decrypts to it, or the kind's
 * `matchesStored` hook says so (a password checked against its hash, never hashed again).
 */
export async function keepStoredSecrets(
  d: KindDescriptor,
  obj: Envelope,
  current: Envelope,
  box: SecretBox,
  ctx: HookContext,
): Promise<void> {
  for (const path of d.sensitive ?? []) {
    const sent = getPath(obj, path);
    const stored = getPath(current, path);
    if (sent === stored || typeof sent !== 'string' || sent === '' || stored === undefined) continue;
    if (
      d.encrypted?.includes(path) ? decryptsTo(box, current, path, stored, sent) : await d.hooks?.matchesStored?.(path, sent, stored, ctx)
    ) {
      setPathIfParentExists(obj, path, stored);
    }
  }
}

/** Whether `obj` holds exactly what `current` stores, server-owned metadata aside (both normalised, secrets in stored form). */
export function sameContent(obj: Envelope, current: Envelope): boolean {
  return sameJson(withoutServerOwned(obj), withoutServerOwned(current));
}

function withoutServerOwned(obj: Envelope): Record<string, unknown> {
  const metadata: Record<string, unknown> = { ...obj.metadata };
  for (const k of SERVER_OWNED) delete metadata[k];
  return { ...obj, metadata };
}

/** A stored value that cannot be decrypted (a key no longer configured) is not the same: the new one is written. */
function decryptsTo(box: SecretBox, current: Envelope, path: string, stored: unknown, plain: string): boolean {
  if (!SecretBox.isEncrypted(stored)) return stored === plain;
  try {
    return box.decrypt(stored, locationOf(current, path)) === plain;
  } catch {
    return false;
  }
}
