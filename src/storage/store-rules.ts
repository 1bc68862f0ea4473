import { ApiError, alreadyExists, badRequest, conflict, notFound } from '../errors.js';
import type {
  CreateOptions,
  DeleteOptions,
  Envelope,
  HistoryOptions,
  ManagerEntry,
  Metadata,
  ObjectKey,
  WriteRecordOptions,
  Writer,
} from './store.js';
import { recordWrite } from './store.js';

/**
 * The rules every Store driver applies, in one place: the preconditions of a write and their
 * errors, the history kept by a write, the managers record it leaves, the revisions a watch may
 * start from. A driver reads what it needs in its own way (a LevelDB batch, a PostgreSQL
 * transaction) and asks these functions what follows, so both say the same thing in the same words.
 */

/** Author of a write that names none. */
export const NOBODY: Writer = Object.freeze({ by: 'unknown', manager: 'unknown' });

/** A create found an object under one of its keys. */
export function taken(obj: Envelope): ApiError {
  return alreadyExists(`${obj.kind} "${obj.metadata.name}" already exists`);
}

/** No object under `key` (an update or delete of it, or the parent a create names). */
export function missing(key: Pick<ObjectKey, 'kind' | 'name'>): ApiError {
  return notFound(`${key.kind} "${key.name}" not found`);
}

/** An update may replace `stored` (the metadata of the object under obj's key, if any). */
export function checkUpdate(obj: Envelope, stored: Metadata | undefined, expectedVersion: number): void {
  const key = { kind: obj.kind, name: obj.metadata.name };
  if (stored === undefined) throw missing(key);
  if (stored.version !== expectedVersion) throw wrongVersion(key, stored.version, expectedVersion);
}

/** A delete may remove `stored` (the metadata of the object under `key`, if any). */
export function checkDelete(
  key: ObjectKey,
  stored: Metadata | undefined,
  opts: Pick<DeleteOptions, 'expectedVersion' | 'expectedUpdatedAt'>,
): void {
  if (stored === undefined) throw missing(key);
  if (opts.expectedVersion !== undefined && stored.version !== opts.expectedVersion)
    throw wrongVersion(key, stored.version, opts.expectedVersion);
  if (opts.expectedUpdatedAt !== undefined && stored.updatedAt !== opts.expectedUpdatedAt) {
    throw conflict(`${key.kind} "${key.name}" was written again at ${stored.updatedAt}`);
  }
}

function wrongVersion(key: Pick<ObjectKey, 'kind' | 'name'>, stored: number, expected: number): ApiError {
  return conflict(`${key.kind} "${key.name}" is at version ${stored}, not ${expected}`);
}

/** What a write does to the history of its object. */
export interface HistoryPlan {
  /** Drop every entry the name has first: a new object under an old name starts a new history. */
  dropEarlier: boolean;
  /** Write this write's entry (author: the write's writer, or NOBODY). */
  record: boolean;
  /** After it, drop the entries of versions below this one (the `max` versions before it are kept). */
  dropBelow?: number;
}

/**
 * The history rules: a create starts afresh unless it continues the name's history (a restore);
 * a write with `history` records its entry; an update, and a create that continues, keep the
 * `max` versions before the one written.
 */
export function historyPlan(obj: Envelope, history: HistoryOptions | undefined, on: 'create' | 'update'): HistoryPlan {
  const continues = on === 'update' || !!history?.continues;
  const keepFrom = history ? obj.metadata.version - history.max : 0;
  return { dropEarlier: !continues, record: !!history, ...(history && continues && keepFrom > 0 ? { dropBelow: keepFrom } : {}) };
}

/** The managers record a create gives `o` (the created object, or one of `also`), or undefined for none. */
export function createdManagers(o: Envelope, main: boolean, opts: Pick<CreateOptions, 'managers' | 'writer'>): ManagerEntry[] | undefined {
  if (main && opts.managers) return [...opts.managers];
  return opts.writer ? recordWrite([], o, opts.writer) : undefined;
}

/**
 * The managers record an update leaves on `obj`, or undefined to leave the stored one as it is;
 * `stored` reads the current record (only when the writer's entry is to be added to it).
 */
export async function updatedManagers(
  obj: Envelope,
  opts: WriteRecordOptions,
  stored: () => Promise<readonly ManagerEntry[]>,
): Promise<ManagerEntry[] | undefined> {
  if (opts.managers) return [...opts.managers];
  return opts.writer ? recordWrite(await stored(), obj, opts.writer) : undefined;
}

/**
 * A watch may start after `since` when the store is at `revision` and its event log holds every
 * event after `oldest`: a later one is 400, an older one is Gone.
 */
export function checkWatchFrom(since: number | undefined, revision: number, oldest: number): void {
  if (since === undefined) return;
  if (since > revision) throw badRequest(`revision ${since} is in the future (the store is at ${revision})`);
  if (since < oldest) throw gone(since, oldest);
}

/** The event log no longer holds the events after `since` (the oldest it can replay from is `oldest`). */
export function gone(since: number, oldest: number): ApiError {
  return new ApiError(
    'Gone',
    `revision ${since} is older than the retained event log (oldest ${oldest}); watch again without since: the stream starts with every current object (an ADDED event each), then goes live`,
  );
}

/** An object's `spec.display.name`, when it is a non-blank string: the title a deleted object is listed by. */
export function displayTitle(obj: { spec?: unknown }): string | undefined {
  const spec = obj.spec as { display?: { name?: unknown } } | undefined;
  const name = spec?.display?.name;
  return typeof name === 'string' && name.trim() !== '' ? name : undefined;
}
