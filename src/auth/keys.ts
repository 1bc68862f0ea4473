import { randomBytes, hkdfSync } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the generated key lives, inside the LevelDB data directory. */
export const GENERATED_KEY_FILE = 'encryption.key';

/** The server's master key and the keys derived from it for each purpose. */
export interface KeyRing {
  /** The current master key (secrets are encrypted with keys derived from it). */
  master: Buffer;
  /** Earlier master keys, for reading secrets written before a rotation. */
  previous: Buffer[];
  /** HS512 key for access tokens. */
  accessTokenKey: Buffer;
  /** HS512 key for refresh tokens (a different key, so one token cannot pass for the other). */
  refreshTokenKey: Buffer;
  /** HMAC key for the short-lived state cookie of external logins. */
  loginStateKey: Buffer;
  /** Where the master key came from (for the log; never the key itself). */
  source: string;
}

/**
 * Decodes a 32-byte key given as 64 hex characters, as base64 (43/44 characters), or as Perses
 * writes it: a string of exactly 32 bytes used as they are (so a Perses configuration starts
 * unchanged; such a key has less entropy than 32 random bytes, prefer `openssl rand -hex 32`).
 */
export function decodeKey(text: string, where: string): Buffer {
  const t = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(t)) return Buffer.from(t, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(t)) {
    const b = Buffer.from(t.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (b.length === 32) return b;
  }
  const raw = Buffer.from(t, 'utf8');
  if (raw.length === 32) return raw;
  throw new Error(
    `${where} must be a 32-byte key written as 64 hex characters, as base64, or as a string of exactly 32 bytes (Perses' form); it is ${raw.length} bytes (generate one with: openssl rand -hex 32)`,
  );
}

/**
 * Loads the master key from security.encryption_key (or DASHPLANE_ENCRYPTION_KEY), or
 * security.encryption_key_file; otherwise generates one once and keeps it, mode 0600, in the
 * data directory. There is never a built-in key.
 */
export function loadKeyRing(opts: {
  key?: string | undefined;
  keyFile?: string | undefined;
  previous?: readonly string[];
  dataDir: string;
}): KeyRing {
  let master: Buffer;
  let source: string;
  if (opts.key) {
    master = decodeKey(opts.key, 'security.encryption_key (or DASHPLANE_ENCRYPTION_KEY)');
    source = 'security.encryption_key';
  } else if (opts.keyFile) {
    let text: string;
    try {
      text = readFileSync(opts.keyFile, 'utf8');
    } catch (e) {
      throw new Error(`cannot read security.encryption_key_file ${opts.keyFile}: ${(e as Error).message}`);
    }
    master = decodeKey(text, `the key in ${opts.keyFile}`);
    source = opts.keyFile;
  } else {
    const file = join(opts.dataDir, GENERATED_KEY_FILE);
    mkdirSync(opts.dataDir, { recursive: true, mode: 0o700 });
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
      source = `${file} (generated now)`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw new Error(`cannot write the generated key ${file}: ${(e as Error).message}`);
      source = file;
    }
    master = decodeKey(readFileSync(file, 'utf8'), `the key in ${file}`);
  }
  const derive = (purpose: string) => Buffer.from(hkdfSync('sha512', master, Buffer.alloc(0), `dashplane/${purpose}`, 64));
  const previous = (opts.previous ?? []).map((k, i) => decodeKey(k, `security.previous_encryption_keys[${i}]`));
  return {
    master,
    previous,
    accessTokenKey: derive('access-token'),
    refreshTokenKey: derive('refresh-token'),
    loginStateKey: derive('login-state'),
    source,
  };
}
