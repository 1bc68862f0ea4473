import type { ObjectKey } from './store.js';

/**
 * The key layout of LevelStore: one letter per record type, then the fields, separated by NUL
 * (names and kinds are ASCII, so byte order is the store's list order).
 *
 * - `o` kind project name: the object's JSON, as written
 * - `w` kind project name: its managers record
 * - `c` kind project name: the revision of its ADDED event
 * - `h` kind project name version: a history entry
 * - `t` kind project name: a tombstone (a deleted object whose history is kept)
 * - `i` kind project name: the object's metadata JSON, written with the object (what the
 *   metadata index loads without reading every body)
 * - `x` class term kind project name: a search index entry (level-search.ts), empty
 * - `y` kind project name: the object's search terms, as indexed (what an update or delete removes)
 * - `e` revision: an event of the log
 * - `a` id: an audit entry (level-audit.ts)
 * - `m` ...: the store's own records (revision, upgrades done)
 */
export const SEP = '\x00';
/** Above every ASCII byte: the exclusive upper bound of a key prefix. */
export const HIGH = '\xff';
export const REVISION_KEY = `m${SEP}revision`;
/** Present once every object's creation revision is recorded (level-upgrades.ts). */
export const CREATIONS_KEY = `m${SEP}creations`;
/** Present once every kept history of a deleted object has its tombstone (level-upgrades.ts). */
export const TOMBSTONES_KEY = `m${SEP}tombstones`;

/** The search index's format and kinds, present once every object of those kinds is in it (level-search.ts). */
export const SEARCH_KEY = `m${SEP}search`;

/** Present once every object has its metadata record (level-upgrades.ts). */
export const METADATA_RECORDS_KEY = `m${SEP}metadata`;

export const pad = (n: number, width: number) => String(n).padStart(width, '0');
export const objectKey = (k: ObjectKey) => `o${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
export const scopePrefix = (kind: string, project: string) => `o${SEP}${kind}${SEP}${project}${SEP}`;
export const eventKey = (rev: number) => `e${SEP}${pad(rev, 16)}`;
export const EVENTS_END = `e${SEP}${HIGH}`;
export const historyPrefix = (k: ObjectKey) => `h${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}${SEP}`;
export const historyKey = (k: ObjectKey, version: number) => historyPrefix(k) + pad(version, 10);
/** The revision of the object's ADDED event (`createdRevision`). */
export const createdKey = (k: ObjectKey) => `c${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/** The object's managers record: kept apart from the object, whose stored text is what reads serve. */
export const managersKey = (k: ObjectKey) => `w${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/**
 * A tombstone: the name of a deleted object whose history is kept (for restore). A create reads it
 * in the same getMany as its existence check, so a new name costs no history scan; only a name
 * with a tombstone has an old history to drop.
 */
export const tombstoneKey = (k: ObjectKey) => `t${SEP}${k.kind}${SEP}${k.project}${SEP}${k.name}`;
/** The metadata record of the object stored under `objKey` (an `o` key). */
export const metadataRecordKey = (objKey: string) => `i${objKey.slice(1)}`;
/** Whether `key` is an object's key (an `o` record). */
export const isObjectKey = (key: string) => key.startsWith(`o${SEP}`);

/** The prefixes of what a project's objects of `kind` leave besides themselves: history, managers, tombstones. */
export const projectRecordPrefixes = (kind: string, project: string) =>
  ['h', 'w', 't'].map((t) => `${t}${SEP}${kind}${SEP}${project}${SEP}`);

/** The object key a history key (`h` kind project name version) belongs to, without the type letter. */
export const historyOwner = (key: string) => key.slice(2, key.lastIndexOf(SEP));

/** One operation of an atomic LevelDB batch. */
export type BatchOp = { type: 'put'; key: string; value: string } | { type: 'del'; key: string };
