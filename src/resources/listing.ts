import type { Visible } from '../access/authorizer.js';
import { type ApiError, badRequest } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, ListQuery, Metadata, ObjectStore, StoredText } from '../storage/store.js';
import { parseDuration } from '../lib/duration.js';
import { getPath } from '../lib/object-path.js';

/** A list request after the HTTP layer parsed and checked its query. */
export interface ListOptions {
  /** Only this project (project kinds). */
  project?: string | undefined;
  namePrefix?: string;
  /** Descriptor list filters by query parameter name (e.g. kind, default). */
  filters?: Record<string, string>;
  limit?: number;
  /** Opaque token from a previous page. */
  continueToken?: string;
  /** The caller shows only kind and metadata (items may have `spec: {}`). */
  metadataOnly?: boolean;
  /** `project` comes from the URL path (`/projects/{project}/...`): a project that does not exist is a 400 (see `requireProject`). */
  projectInPath?: boolean;
}

/** The 400 of a project that does not exist, in Perses' words (percli matches `metadata.project "<name>" doesn't exist`); `path`: where it was named. */
export function projectMissing(project: string, path = 'metadata.project'): ApiError {
  return badRequest(`metadata.project "${project}" doesn't exist`, [{ path, message: `create project "${project}" first` }]);
}

/**
 * A list or watch under `/projects/{project}/` of a project that does not exist is a 400, as
 * Perses answers, not an empty list: the caller named a wrong project. Called after the permission
 * check, so whoever may not read there learns nothing about which projects exist.
 */
export async function requireProject(store: ObjectStore, projectKind: string, project: string, synced: boolean | undefined): Promise<void> {
  if (!(await store.getText({ kind: projectKind, project: '', name: project }, { synced: synced === true })))
    throw projectMissing(project, 'project');
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

function encodeContinue(m: Metadata): string {
  return Buffer.from(JSON.stringify([m.project ?? '', m.name])).toString('base64url');
}

function decodeContinue(token: string): Position {
  try {
    const [project, name] = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown[];
    if (typeof project === 'string' && typeof name === 'string') return { project, name };
  } catch {
    // fall through
  }
  throw badRequest('the "continue" token is not valid; start again from the first page without it', [
    { path: 'continue', message: 'not a token returned by this server' },
  ]);
}

/** Checks each descriptor filter value, e.g. default=true|false. */
export function filterPredicate(d: KindDescriptor, filters: Record<string, string> = {}): (o: Envelope) => boolean {
  const checks = (d.listFilters ?? [])
    .filter((f) => filters[f.param] !== undefined)
    .map((f) => {
      const want = filters[f.param];
      if (f.type === 'boolean') {
        if (want !== 'true' && want !== 'false')
          throw badRequest(`query parameter "${f.param}" must be true or false, not ${JSON.stringify(want)}`);
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
export async function listPage(
  store: ObjectStore,
  d: KindDescriptor,
  q: ListOptions,
  readable: Visible,
  nowMs: number,
): Promise<ListResult> {
  const matches = filterPredicate(d, q.filters);
  // Without expiry or a spec filter to check, the store may answer from its metadata index.
  const metadataOnly = q.metadataOnly === true && needsNoSpec(d, q);
  const keep = (o: Envelope) => !isExpired(d, o, nowMs) && matches(o);
  return pageOf(
    (sq) => store.list(metadataOnly ? { ...sq, metadataOnly } : sq),
    (o) => o.metadata,
    keep,
    d,
    q,
    readable,
  );
}

/**
 * Whether a list of `d` with these options needs nothing from the specs (no expiry, no spec
 * filter): it can be answered from a metadata index or with the stored texts.
 */
export function needsNoSpec(d: KindDescriptor, q: ListOptions): boolean {
  return !d.ttlPath && !(d.listFilters ?? []).some((f) => q.filters?.[f.param] !== undefined);
}

/** `listPage` as stored JSON texts, for a list that `needsNoSpec`. */
export async function listTextPage(
  store: ObjectStore,
  d: KindDescriptor,
  q: ListOptions,
  readable: Visible,
): Promise<{ items: StoredText[]; continueToken?: string }> {
  return pageOf(
    (sq) => store.listText(sq),
    (t) => t.metadata,
    () => true,
    d,
    q,
    readable,
  );
}

/** The paging loop of both: `read` one sorted batch after another, `keep` what the caller may see. */
async function pageOf<T>(
  read: (q: ListQuery) => Promise<T[]>,
  metadataOf: (item: T) => Metadata,
  keep: (item: T) => boolean,
  d: KindDescriptor,
  q: ListOptions,
  readable: Visible,
): Promise<{ items: T[]; continueToken?: string }> {
  // A Project object is "in" itself; every other object is in metadata.project.
  const projectOf = (m: Metadata) => (d.isProjectScope ? m.name : (m.project ?? ''));
  const want = q.limit ?? Infinity;
  const batch = q.limit === undefined ? undefined : Math.max(q.limit + 1, 100);
  const out: T[] = [];
  let after = q.continueToken ? decodeContinue(q.continueToken) : undefined;
  for (;;) {
    const page = await read({
      kind: d.kind,
      ...(d.scope === 'global' ? { project: '' } : q.project !== undefined ? { project: q.project } : {}),
      ...(q.namePrefix ? { namePrefix: q.namePrefix } : {}),
      ...(after ? { after } : {}),
      ...(batch ? { limit: batch } : {}),
    });
    for (const item of page) {
      const m = metadataOf(item);
      if (keep(item) && (readable === '*' || readable(projectOf(m), m.name))) out.push(item);
    }
    if (batch === undefined || page.length < batch || out.length > want) break;
    const last = metadataOf(page[page.length - 1]);
    after = { project: last.project ?? '', name: last.name };
  }
  if (out.length <= want) return { items: out };
  const items = out.slice(0, want);
  return { items, continueToken: encodeContinue(metadataOf(items[items.length - 1])) };
}
