import { invalid, type ErrorDetail } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope } from '../storage/store.js';
import { deletePath, getPath, setPath, setPathIfParentExists } from '../lib/object-path.js';

/** What responses show instead of a sensitive value. */
export const SECRET_MASK = '<secret>';

/** A copy of `obj` with every non-empty sensitive field replaced by "<secret>". */
export function mask(d: KindDescriptor, obj: Envelope): Envelope {
  if (!d.sensitive?.length) return obj;
  const copy = structuredClone(obj);
  for (const path of d.sensitive) {
    const v = getPath(copy, path);
    if (v !== undefined && v !== null && v !== '') setPathIfParentExists(copy, path, SECRET_MASK);
  }
  return copy;
}

/**
 * A client may send back "<secret>" it read from us: on update it means "keep the stored value";
 * on create there is nothing to keep, so it is an error naming the field.
 */
export function restoreMasked(d: KindDescriptor, obj: Envelope, current: Envelope | undefined): void {
  const problems: ErrorDetail[] = [];
  for (const path of d.sensitive ?? []) {
    if (getPath(obj, path) !== SECRET_MASK) continue;
    const kept = current ? getPath(current, path) : undefined;
    if (kept === undefined) problems.push({ path, message: `"${SECRET_MASK}" is the placeholder responses show; send the real value` });
    else setPathIfParentExists(obj, path, kept);
  }
  if (problems.length) throw invalid(problems);
}

/**
 * The kind's `keptWhenOmitted` fields: on update, left out (absent or "") means keep the stored
 * value and `null` means remove it; on create (no `current`) they are required.
 */
export function keepOmitted(d: KindDescriptor, obj: Envelope, current: Envelope | undefined): void {
  const problems: ErrorDetail[] = [];
  for (const path of d.keptWhenOmitted ?? []) {
    const sent = getPath(obj, path);
    if (sent === null) {
      deletePath(obj, path);
      if (!current) problems.push({ path, message: 'is required' });
      continue;
    }
    if (sent !== undefined && sent !== '') continue;
    const kept = current ? getPath(current, path) : undefined;
    if (kept !== undefined && kept !== '') setPath(obj, path, kept);
    else if (!current) problems.push({ path, message: 'is required (it cannot be empty)' });
  }
  if (problems.length) throw invalid(problems, d.kind);
}
