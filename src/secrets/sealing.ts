import type { KindDescriptor } from '../kinds/descriptor.js';
import { getPath, setPathIfParentExists } from '../lib/object-path.js';
import type { Envelope } from '../storage/store.js';
import { SecretBox } from './secret-box.js';

/** Associated data of a field: the object's identity and the field path. */
export function locationOf(obj: Envelope, path: string): string {
  return `${obj.kind}/${obj.metadata.project ?? ''}/${obj.metadata.name}/${path}`;
}

/**
 * Encrypts the kind's `encrypted` fields in place before a write. A value equal to the stored
 * ciphertext (a "<secret>" placeholder sent back and restored) is kept as it is.
 */
export function seal(d: KindDescriptor, obj: Envelope, current: Envelope | undefined, box: SecretBox): void {
  for (const path of d.encrypted ?? []) {
    const value = getPath(obj, path);
    if (typeof value !== 'string' || value === '') continue;
    if (current && SecretBox.isEncrypted(value) && value === getPath(current, path)) continue;
    setPathIfParentExists(obj, path, box.encrypt(value, locationOf(obj, path)));
  }
}

/** A copy with the `encrypted` fields decrypted (for the proxy); throws DecryptError. */
export function unseal(d: KindDescriptor, obj: Envelope, box: SecretBox): Envelope {
  const copy = structuredClone(obj);
  for (const path of d.encrypted ?? []) {
    const value = getPath(copy, path);
    if (SecretBox.isEncrypted(value)) setPathIfParentExists(copy, path, box.decrypt(value, locationOf(obj, path)));
  }
  return copy;
}

/** Every encrypted value of the object with its location. */
export function sealedValues(d: KindDescriptor, obj: Envelope): { path: string; value: string }[] {
  return (d.encrypted ?? []).flatMap((path) => {
    const value = getPath(obj, path);
    return SecretBox.isEncrypted(value) ? [{ path, value }] : [];
  });
}
