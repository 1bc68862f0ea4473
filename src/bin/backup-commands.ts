import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, rename, rm } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { readBuildInfo } from '../build-info.js';
import { buildKindRegistry } from '../kinds/index.js';
import { backupLines, checkBackup, restoreBackup } from '../admin/backup.js';
import { storeFromUri } from '../admin/open-store.js';

export interface BackupArgs {
  to: string;
  /** A running server to ask (GET /api/v1/admin/backup)… */
  server?: string;
  token?: string;
  /** …or a store to read directly (PostgreSQL while servers run; LevelDB only while stopped). */
  from?: string;
  history: boolean;
  sessions: boolean;
}

/** Lines of a file, without their newlines. */
function fileLines(path: string): () => AsyncIterable<string> {
  return () => createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
}

/**
 * `dashplane backup --to FILE (--server URL | --from STORE)`: writes FILE.partial (mode 0600: it
 * holds password hashes, sessions and encrypted secrets), checks it is complete, then renames it
 * to FILE, so FILE is never a cut-short backup.
 */
export async function backup(a: BackupArgs, log: (line: string) => void): Promise<void> {
  const partial = `${a.to}.partial`;
  const out = createWriteStream(partial, { mode: 0o600 });
  try {
    if (a.server) await pipeline(await fromServer(a), out);
    else if (a.from) await fromStore(a, out);
    else throw new Error('say where to back up from: --server URL (a running server) or --from level:DIR | postgres://... (a store)');
    await chmod(partial, 0o600);
    const { header, end } = await checkBackup(fileLines(partial)());
    await rename(partial, a.to);
    log(
      `backup written to ${a.to}: ${end.objects} objects, ${end.versions} versions, revision ${header.revision}${header.sessions ? '' : ', without sessions'}${header.history ? '' : ', without history'}`,
    );
    if (end.encryptionKeyIds.length)
      log(
        `its secrets are encrypted with the key(s) ${end.encryptionKeyIds.join(', ')}: keep that key (not in the same place); the backup is useless without it`,
      );
  } catch (e) {
    out.destroy();
    await rm(partial, { force: true });
    throw e;
  }
}

async function fromServer(a: BackupArgs): Promise<Readable> {
  const url = new URL('/api/v1/admin/backup', a.server);
  if (!a.history) url.searchParams.set('history', 'false');
  if (!a.sessions) url.searchParams.set('sessions', 'false');
  let res: Response;
  try {
    res = await fetch(url, { headers: a.token ? { authorization: `Bearer ${a.token}` } : {} });
  } catch (e) {
    throw new Error(`cannot reach ${a.server}: ${(e as Error).message}`);
  }
  if (res.status !== 200) {
    const body = (await res.json().catch(() => ({}))) as { message?: string };
    throw new Error(
      `${url.origin} answered ${res.status}: ${body.message ?? res.statusText}${res.status === 401 ? ' (pass --token or DASHPLANE_TOKEN)' : ''}`,
    );
  }
  return Readable.fromWeb(res.body! as never);
}

async function fromStore(a: BackupArgs, out: NodeJS.WritableStream): Promise<void> {
  const store = storeFromUri(a.from!, { existing: true });
  await store.open();
  try {
    const lines = backupLines(store, buildKindRegistry(), { history: a.history, sessions: a.sessions, version: readBuildInfo().version });
    await pipeline(Readable.from(lines), out);
  } finally {
    await store.close();
  }
}

/** `dashplane restore --from FILE --to STORE`: into an empty store, servers stopped. */
export async function restore(file: string, to: string, log: (line: string) => void): Promise<void> {
  await restoreBackup(fileLines(file), () => storeFromUri(to), buildKindRegistry(), log);
}
