import { badRequest } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, Store } from '../storage/store.js';
import { parseDuration } from './duration.js';
import { getPath } from './object-path.js';

/** A list request after the HTTP layer parsed and checked its query. */
export interface ListOptions {
  /** Only this project (project kinds). */
  project?: string;
  namePrefix?: string;
  /** Descriptor list filters by query parameter name (e.g. kind, default). */
  filters?: Record<string, string>;
  limit?: number;
  /** Opaque token from a previous page. */
  continueToken?: string;
  /** The caller shows only kind and metadata (items may have `spec: {}`). */
  metadataOnly?: boolean;
}

export interface ListResult {
  items: Envelope[];
  /** Present when more items remain. */
  continueToken?: string;
}

/** An object with a ttl whose updatedAt + ttl has passed is never served. */
export function isExpired(d: KindDescriptor, obj: Envelope, nowMs: number): boolean {
  if (!d.ttlPath) return false;
  const ttl = parseDuration(getPath(obj, d.ttlPath) as string);
  return ttl !== undefined && Date.parse(obj.metadata.updatedAt) + ttl <= nowMs;
}

interface Position {
  project: string;
  name: string;
}

export function encodeContinue(obj: Envelope): string {
  return Buffer.from(JSON.stringify([obj.metadata.project ?? '', obj.metadata.name])).toString('base64url');
}

function decodeContinue(token: string): Position {
  try {
    const [project, name] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof project === 'string' && typeof name === 'string') return { project, name };
  } catch {
    // fall through
  }
  throw badRequest('the "continue" token is not valid; start again from the first page without it', [{ path: 'continue', message: 'not a token returned by this server' }]);
}

/** Checks each descriptor filter value, e.g. default=true|false. */
export function filterPredicate(d: KindDescriptor, filters: Record<string, string> = {}): (o: Envelope) => boolean {
  const checks = (d.listFilters ?? [])
    .filter((f) => filters[f.param] !== undefined)
    .map((f) => {
      const want = filters[f.param];
      if (f.type === 'boolean') {
        if (want !== 'true' && want !== 'false') throw badRequest(`query parameter "${f.param}" must be true or false, not ${JSON.stringify(want)}`);
        return (o: Envelope) => String(getPath(o, f.path) === true) === want;
      }
      return (o: Envelope) => getPath(o, f.path) === want;
    });
  return (o) => checks.every((c) => c(o));
}

/**
 * One page of a list: the store's sorted scan, then expiry, descriptor filters and the caller's
 * readable projects; reads further batches until the page is full or the scan ends.
 */
export async function listPage(store: Store, d: KindDescriptor, q: ListOptions, readable: '*' | ReadonlySet<string>, nowMs: number): Promise<ListResult> {
  const matches = filterPredicate(d, q.filters);
  // A Project object is "in" itself; every other object is in metadata.project.
  const projectOf = (o: Envelope) => (d.isProjectScope ? o.metadata.name : (o.metadata.project ?? ''));
  const keep = (o: Envelope) => !isExpired(d, o, nowMs) && matches(o) && (readable === '*' || readable.has(projectOf(o)));
  // Without expiry or a spec filter to check, the store may answer from its metadata index.
  const metadataOnly = q.metadataOnly === true && !d.ttlPath && !(d.listFilters ?? []).some((f) => q.filters?.[f.param] !== undefined);
  const want = q.limit ?? Infinity;
  const batch = q.limit === undefined ? undefined : Math.max(q.limit + 1, 100);
  const out: Envelope[] = [];
  let after = q.continueToken ? decodeContinue(q.continueToken) : undefined;
  for (;;) {
    const page = await store.list({
      kind: d.kind,
      ...(d.scope === 'global' ? { project: '' } : q.project !== undefined ? { project: q.project } : {}),
      ...(q.namePrefix ? { namePrefix: q.namePrefix } : {}),
      ...(after ? { after } : {}),
      ...(batch ? { limit: batch } : {}),
      ...(metadataOnly ? { metadataOnly } : {}),
    });
    for (const o of page) if (keep(o)) out.push(o);
    if (batch === undefined || page.length < batch || out.length > want) break;
    const last = page[page.length - 1];
    after = { project: last.metadata.project ?? '', name: last.metadata.name };
  }
  if (out.length <= want) return { items: out };
  const items = out.slice(0, want);
  return { items, continueToken: encodeContinue(items[items.length - 1]) };
}
