import { createHash } from 'node:crypto';
import type { Principal } from '../access/authorizer.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope } from '../storage/store.js';
import { getPath } from '../lib/object-path.js';

/**
 * A short digest of an object's credential fields (its kind's `credentials` paths, as stored: a
 * password hash, never a plain password). Sessions are bound to the stamp of their user: when a
 * credential changes, so does the stamp, and the sessions bound to the old one end, on every
 * replica, without anything being deleted.
 */
export function credentialStamp(d: KindDescriptor, obj: Envelope): string {
  // every authenticated request checks its user's stamp: the cached user object keeps its stamp
  const known = stamps.get(obj);
  if (known !== undefined && known.kind === d) return known.stamp;
  const values = (d.credentials ?? []).map((path) => getPath(obj, path) ?? null);
  const stamp = createHash('sha256').update(JSON.stringify(values)).digest('base64url').slice(0, 22);
  if (Object.isFrozen(obj)) stamps.set(obj, { kind: d, stamp });
  return stamp;
}

/** Stamps of frozen objects (those shared by the read caches, which a change replaces rather than alters). */
const stamps = new WeakMap<object, { kind: KindDescriptor; stamp: string }>();

/** A write that is about to change the credentials of a principal object (a user's password). */
export interface CredentialChange {
  /** Who makes the change (the user themselves, an administrator, dashplane). */
  principal: Principal;
  /** The object as stored now, and as it will be stored. */
  before: Envelope;
  after: Envelope;
  /** `credentialStamp` of each. */
  from: string;
  to: string;
}
