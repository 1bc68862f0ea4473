import type { Level } from 'level';
import { readdirSync } from 'node:fs';
import { ApiError } from '../errors.js';
import {
  type BatchOp,
  CREATIONS_KEY,
  EVENTS_END,
  HIGH,
  METADATA_RECORDS_KEY,
  SEP,
  TOMBSTONES_KEY,
  createdKey,
  eventKey,
  metadataRecordKey,
  objectKey,
} from './level-keys.js';
import { metadataText } from './stored-text.js';
import type { StoreEvent } from './store.js';
import { keyOf } from './store.js';

/**
 * What LevelStore does to a data directory before serving it: refuse a damaged one, bring one
 * written by an older dashplane up to date (each upgrade once, marked by an `m` key), and turn
 * LevelDB's errors into messages that say what to do.
 */
export async function upgradeLevelData(db: Level<string, string>): Promise<void> {
  if ((await db.get(CREATIONS_KEY)) === undefined) await recordCreations(db);
  if ((await db.get(TOMBSTONES_KEY)) === undefined) await recordTombstones(db);
  if ((await db.get(METADATA_RECORDS_KEY)) === undefined) await recordMetadata(db);
}

/**
 * Once, on a database written before objects had metadata records: one for every object, in
 * batches (an upgrade stopped half-way runs again whole at the next open; its writes are the same).
 */
async function recordMetadata(db: Level<string, string>): Promise<void> {
  let ops: BatchOp[] = [];
  for await (const [key, raw] of db.iterator({ gte: `o${SEP}`, lt: `o${SEP}${HIGH}` })) {
    ops.push({ type: 'put', key: metadataRecordKey(key), value: metadataText(raw) });
    if (ops.length === 5_000) {
      await db.batch(ops);
      ops = [];
    }
  }
  await db.batch([...ops, { type: 'put', key: METADATA_RECORDS_KEY, value: '1' }]);
}

/**
 * Once, on a database written before tombstones were kept: a tombstone for every history whose
 * object no longer exists (a deleted object kept for restore). Without it, a create of that
 * name would not know to drop the old history.
 */
async function recordTombstones(db: Level<string, string>): Promise<void> {
  const orphans = new Set<string>();
  for await (const key of db.keys({ gte: `h${SEP}`, lt: `h${SEP}${HIGH}` })) {
    const [, kind, project, name] = key.split(SEP);
    orphans.add(objectKey({ kind, project, name }));
  }
  const live = await db.getMany([...orphans]);
  const ops: BatchOp[] = [...orphans]
    .filter((_, i) => live[i] === undefined)
    .map((k) => ({ type: 'put', key: `t${k.slice(1)}`, value: '' }));
  await db.batch([...ops, { type: 'put', key: TOMBSTONES_KEY, value: '1' }]);
}

/**
 * Once, on a database written before creation revisions were kept: the creation revision of
 * every object whose ADDED event is still in the log. The others were created before the oldest
 * retained event (`createdRevision` answers 0 for them).
 */
async function recordCreations(db: Level<string, string>): Promise<void> {
  const created = new Map<string, number>();
  for await (const raw of db.values({ gt: eventKey(0), lt: EVENTS_END })) {
    const e = JSON.parse(raw) as StoreEvent;
    const key = createdKey(keyOf(e.object));
    if (e.type === 'ADDED') created.set(key, e.revision);
    else if (e.type === 'DELETED') created.delete(key);
  }
  const ops: BatchOp[] = [...created].map(([key, rev]) => ({ type: 'put', key, value: String(rev) }));
  await db.batch([...ops, { type: 'put', key: CREATIONS_KEY, value: '1' }]);
}

/** A full disk is the client's 507, not an anonymous 500; nothing was written. */
export function translateWriteError(e: unknown): Error {
  const text = `${(e as { code?: string }).code ?? ''} ${(e as Error).message ?? ''} ${(e as { cause?: Error }).cause?.message ?? ''}`;
  if (/no space|ENOSPC|file too large|EFBIG|disk full/i.test(text)) {
    return new ApiError('InsufficientStorage', "the server's disk is full: nothing was written; free space and retry");
  }
  return e as Error;
}

/**
 * LevelDB files without CURRENT mean a damaged database: opening it would silently start empty
 * (and discard the old tables). Refuse instead.
 */
export function refuseHeadlessDatabase(path: string): void {
  let files: string[];
  try {
    files = readdirSync(path);
  } catch {
    return; // a new directory
  }
  if (!files.includes('CURRENT') && files.some((f) => /^(MANIFEST-\d+|\d+\.(ldb|log|sst))$/.test(f))) {
    throw new Error(
      `the data directory ${path} holds LevelDB files but no CURRENT file: it is damaged; restore it from a backup. dashplane never repairs or empties it automatically`,
    );
  }
}

export function translateOpenError(e: unknown, path: string): Error {
  const err = e as { code?: string; cause?: { code?: string; message?: string }; message?: string };
  const code = err.cause?.code ?? err.code;
  const detail = err.cause?.message ?? err.message ?? String(e);
  if (code === 'LEVEL_LOCKED' || /lock/i.test(detail)) {
    return new Error(
      `the data directory ${path} is in use by another dashplane process (LevelDB lock held); stop it or use another database.level.path`,
    );
  }
  if (code === 'LEVEL_CORRUPTION' || /corrupt/i.test(detail)) {
    return new Error(
      `the data directory ${path} is corrupted (${detail}); restore it from a backup. dashplane never repairs it automatically`,
    );
  }
  return new Error(`cannot open the data directory ${path}: ${detail}`);
}
