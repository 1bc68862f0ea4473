import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** Stored form of an encrypted value: `v1:<key id>:<base64 of nonce | ciphertext | tag>`. */
const FORMAT = /^v1:([0-9a-f]{8}):([A-Za-z0-9+/]+={0,2})$/;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** A value that cannot be decrypted: unknown key, wrong key, tampered or moved ciphertext. */
export class DecryptError extends Error {}

interface Key {
  id: string;
  aes: Buffer;
}

/** The short public id of a master key (an HMAC fingerprint, not the key). */
export function keyIdOf(master: Buffer): string {
  return createHmac('sha256', master).update('dashplane/key-id').digest('hex').slice(0, 8);
}

/**
 * AES-256-GCM for sensitive fields: a random nonce per value, the key id in the stored string,
 * and associated data naming where the value lives (kind/project/name/field), so a ciphertext
 * copied to another record or field does not decrypt. Writes with the primary key; reads with
 * the primary or any previous key.
 */
export class SecretBox {
  private readonly primary: Key;
  private readonly byId = new Map<string, Key>();

  constructor(primary: Buffer, previous: readonly Buffer[] = []) {
    const derive = (master: Buffer): Key => ({
      id: keyIdOf(master),
      aes: Buffer.from(hkdfSync('sha256', master, Buffer.alloc(0), 'dashplane/secrets', 32)),
    });
    this.primary = derive(primary);
    for (const k of [this.primary, ...previous.map(derive)]) if (!this.byId.has(k.id)) this.byId.set(k.id, k);
  }

  get primaryKeyId(): string {
    return this.primary.id;
  }

  static isEncrypted(value: unknown): value is string {
    return typeof value === 'string' && FORMAT.test(value);
  }

  /** The key id an encrypted value was written with. */
  static keyIdIn(value: string): string | undefined {
    return FORMAT.exec(value)?.[1];
  }

  encrypt(plaintext: string, where: string): string {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.primary.aes, nonce);
    cipher.setAAD(Buffer.from(where, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return `v1:${this.primary.id}:${Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64')}`;
  }

  decrypt(value: string, where: string): string {
    const m = FORMAT.exec(value);
    if (!m) throw new DecryptError('not an encrypted value');
    const key = this.byId.get(m[1]);
    if (!key) throw new DecryptError(`encrypted with key ${m[1]}, which is not configured (add it to security.previous_encryption_keys)`);
    const raw = Buffer.from(m[2], 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new DecryptError('truncated ciphertext');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key.aes, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(where, 'utf8'));
      decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES, raw.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new DecryptError(`cannot decrypt with key ${m[1]}: wrong key, or the value was altered or moved`);
    }
  }
}
