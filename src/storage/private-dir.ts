import { chmodSync, lstatSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Group and other permission bits. */
const OTHERS = 0o077;

/**
 * Makes the data directory `path` the server's own: created 0700 when missing; files in it that
 * others could read (an older dashplane's, a wide umask's: LevelDB creates its files with the
 * umask's modes) are narrowed to the owner's bits (0600), and so is the directory when others
 * could enter it (0700). Returns a line for the log when the directory was open to others, or a
 * mode could not be changed (another owner: reported, not fatal); else undefined. The server's
 * own files are 0600 as they are created, under its umask (src/bin/dashplane.ts).
 */
export function privateDir(path: string): string | undefined {
  try {
    mkdirSync(path, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new Error(`cannot create the data directory ${path}: ${(e as Error).message}; check database.level.path`);
  }
  const dirMode = statSync(path).mode & 0o777;
  const wide = [{ path, mode: dirMode }];
  for (const f of readdirSync(path)) {
    const s = lstatSync(join(path, f));
    if (s.isFile()) wide.push({ path: join(path, f), mode: s.mode & 0o777 });
  }
  const failed: string[] = [];
  for (const x of wide.filter((w) => w.mode & OTHERS)) {
    try {
      chmodSync(x.path, x.mode & ~OTHERS);
    } catch (e) {
      failed.push(`${x.path}: ${(e as Error).message}`);
    }
  }
  const opened =
    dirMode & OTHERS
      ? `the data directory ${path} was open to other users (mode ${dirMode.toString(8)}): it is now 0700 and its files 0600`
      : undefined;
  if (!failed.length) return opened;
  return `${opened ?? `the data directory ${path} holds files other users may read`}; could not narrow ${failed.join('; ')}`;
}
