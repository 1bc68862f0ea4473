import { SESSION_KIND } from '../auth/sessions.js';
import type { KindRegistry } from '../kinds/registry.js';
import { getPath } from '../lib/object-path.js';
import { assertEmpty, copyObject, type Version } from './migrate-store.js';
import type { Envelope, MaintenanceStore, ManagerEntry, ObjectStore } from '../storage/store.js';

/** The first line of a backup file. */
export interface BackupHeader {
  dashplane_backup: 1;
  /** When the snapshot was taken (RFC 3339). */
  createdAt: string;
  /** The store-wide revision of the snapshot. */
  revision: number;
  /** The dashplane version that wrote it. */
  writtenBy: string;
  history: boolean;
  sessions: boolean;
}

/** The last line: what a complete file holds (a file without it was cut short). */
export interface BackupEnd {
  end: { objects: number; versions: number; encryptionKeyIds: string[] };
}

export interface BackupOptions {
  /** Keep the version history of every object (default true). */
  history?: boolean;
  /** Keep sign-in sessions, so users stay signed in after a restore (default true). */
  sessions?: boolean;
  /** The dashplane version, for the header. */
  version: string;
}

/**
 * A backup as newline-delimited JSON, from one consistent snapshot of the store (`Store.dump`)
 * taken while it serves: a header, then `{"version": ..., "updatedBy", "manager"}` lines (an
 * object's kept history, oldest first) before each `{"object": ..., "managers"}` line (its field
 * managers record), then an `end` line with the counts and
 * the ids of the encryption keys the secrets need. Secret values stay encrypted, as stored.
 */
export async function* backupLines(store: Pick<MaintenanceStore, 'dump'>, registry: KindRegistry, o: BackupOptions): AsyncIterable<string> {
  const history = o.history !== false;
  const sessions = o.sessions !== false;
  const keyIds = new Set<string>();
  let objects = 0;
  let versions = 0;
  for await (const item of store.dump()) {
    if (item.type === 'revision') {
      const header: BackupHeader = {
        dashplane_backup: 1,
        createdAt: new Date().toISOString(),
        revision: item.revision,
        writtenBy: o.version,
        history,
        sessions,
      };
      yield `${JSON.stringify(header)}\n`;
      continue;
    }
    if (!sessions && item.object.kind === SESSION_KIND) continue;
    if (item.type === 'version') {
      if (!history) continue;
      versions++;
      yield `${JSON.stringify({ version: item.object, updatedBy: item.updatedBy, ...(item.manager ? { manager: item.manager } : {}) })}\n`;
      continue;
    }
    objects++;
    for (const path of registry.byName(item.object.kind)?.encrypted ?? []) {
      const sealed = getPath(item.object, path);
      const id = typeof sealed === 'string' ? /^v1:([^:]+):/.exec(sealed)?.[1] : undefined;
      if (id) keyIds.add(id);
    }
    yield `${JSON.stringify({ object: item.object, ...(item.managers.length ? { managers: item.managers } : {}) })}\n`;
  }
  const end: BackupEnd = { end: { objects, versions, encryptionKeyIds: [...keyIds].sort() } };
  yield `${JSON.stringify(end)}\n`;
}

type Line = { version: Envelope; updatedBy: string; manager?: string } | { object: Envelope; managers?: ManagerEntry[] } | BackupEnd;

/** Reads and checks a whole backup (header first, every line JSON, the end line's counts); throws naming what is wrong. */
export async function checkBackup(lines: AsyncIterable<string>): Promise<{ header: BackupHeader; end: BackupEnd['end'] }> {
  let header: BackupHeader | undefined;
  let end: BackupEnd['end'] | undefined;
  let objects = 0;
  let versions = 0;
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === '') continue;
    if (end) throw new Error(`line ${n}: data after the end line`);
    let parsed: Line | BackupHeader;
    try {
      parsed = JSON.parse(line) as Line | BackupHeader;
    } catch {
      throw new Error(`line ${n} is not JSON: the file is damaged`);
    }
    if (!header) {
      if ((parsed as BackupHeader).dashplane_backup !== 1)
        throw new Error('this is not a dashplane backup (its first line is not a backup header of format 1)');
      header = parsed as BackupHeader;
    } else if ('end' in parsed) end = parsed.end;
    else if ('object' in parsed) objects++;
    else if ('version' in parsed) versions++;
    else throw new Error(`line ${n} is neither an object nor a version`);
  }
  if (!header) throw new Error('the file is empty');
  if (!end) throw new Error('the backup was cut short (no end line): take it again');
  if (end.objects !== objects || end.versions !== versions)
    throw new Error(`the backup says ${end.objects} objects and ${end.versions} versions but holds ${objects} and ${versions}`);
  return { header, end };
}

/**
 * `dashplane restore`: writes a checked backup into an empty store, each object with its history
 * (same versions, timestamps, authors and encrypted values, as `migrate-store` copies them).
 */
export async function restoreBackup(
  lines: () => AsyncIterable<string>,
  target: () => ObjectStore & MaintenanceStore,
  registry: KindRegistry,
  log: (line: string) => void,
): Promise<{ objects: number; versions: number }> {
  const { header, end } = await checkBackup(lines());
  log(
    `backup of ${header.createdAt} (revision ${header.revision}, dashplane ${header.writtenBy}): ${end.objects} objects, ${end.versions} versions`,
  );
  if (end.encryptionKeyIds.length)
    log(`its secrets need the encryption key(s) ${end.encryptionKeyIds.join(', ')}: start the restored server with the same key`);
  // the target is touched only once the whole file has been checked
  const to = target();
  await to.open();
  try {
    await assertEmpty(to, [...registry.all().map((d) => d.kind), SESSION_KIND]);
    let pending: Version[] = [];
    let objects = 0;
    let versions = 0;
    let first = true;
    for await (const line of lines()) {
      if (first || line.trim() === '') {
        first = false;
        continue;
      }
      const parsed = JSON.parse(line) as Line;
      if ('version' in parsed)
        pending.push({ object: parsed.version, updatedBy: parsed.updatedBy, ...(parsed.manager ? { manager: parsed.manager } : {}) });
      else if ('object' in parsed) {
        versions += await copyObject(to, parsed.object, pending, parsed.managers ?? []);
        pending = [];
        objects++;
      }
    }
    log(`done: ${objects} objects and ${versions} history entries restored`);
    return { objects, versions };
  } finally {
    await to.close();
  }
}
