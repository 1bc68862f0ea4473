import * as ScryptModule from 'scrypt-kdf';

/** scrypt-kdf's types declare named exports, its ESM build has only a default export: accept both. */
const Scrypt = ((ScryptModule as unknown as { default?: typeof ScryptModule }).default ?? ScryptModule) as typeof ScryptModule;
import { ApiError } from '../errors.js';

/** Prefix of stored password hashes (base64 of scrypt-kdf's self-describing key). */
const PREFIX = 'scrypt:';

/**
 * Password hashing with scrypt (scrypt-kdf, random salt, parameters stored in the hash).
 * At most `concurrency` derivations run at once (they use libuv's thread pool, which LevelDB
 * needs too), and at most `maxQueue` wait; beyond that a 429 asks the client to retry, so a
 * login flood cannot starve ordinary requests.
 */
export class PasswordHasher {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private dummy?: Promise<string> | undefined;

  constructor(private readonly opts: { logN: number; concurrency: number; maxQueue: number }) {}

  async hash(password: string): Promise<string> {
    const key = await this.limited(() => Scrypt.kdf(password, { logN: this.opts.logN }));
    return PREFIX + Buffer.from(key).toString('base64');
  }

  /** True when `password` matches `stored`; a missing or malformed hash costs the same time and is false. */
  async verify(stored: string | undefined, password: string): Promise<boolean> {
    const real = typeof stored === 'string' && stored.startsWith(PREFIX);
    const hash = real ? stored : await this.dummyHash();
    const ok = await this.limited(() => Scrypt.verify(Buffer.from(hash.slice(PREFIX.length), 'base64'), password)).catch((e: unknown) => {
      if (e instanceof ApiError) throw e;
      return false;
    });
    return real && ok;
  }

  /**
   * Holds every derivation slot and the whole queue, as a login flood does, until the returned
   * `release` is called (it resolves once they are free again): from the call on, every hash or
   * verify is refused with 429. A test hook, for putting a server in that state on demand instead
   * of racing a flood for it.
   */
  hold(): () => Promise<void> {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    // each call takes a slot, or a place in the queue, before it returns (no await before that)
    const holders = Array.from({ length: this.opts.concurrency + this.opts.maxQueue }, () =>
      this.limited(() => gate).catch(() => undefined),
    );
    return async () => {
      open();
      await Promise.all(holders);
    };
  }

  /** Whether a stored value is one of our hashes (as opposed to a password still to hash). */
  static isHash(value: unknown): boolean {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  /**
   * A hash of a random password with the same parameters, so unknown users take as long as known
   * ones. Made once, outside the queue (a full queue must not make unknown users answer
   * differently from then on).
   */
  private dummyHash(): Promise<string> {
    this.dummy ??= Scrypt.kdf(`dummy-${Math.random()}`, { logN: this.opts.logN }).then(
      (key) => PREFIX + Buffer.from(key).toString('base64'),
      (e: unknown) => {
        this.dummy = undefined;
        throw e;
      },
    );
    return this.dummy;
  }

  private async limited<T>(fn: () => Promise<T>): Promise<T> {
    if (this.running >= this.opts.concurrency) {
      if (this.waiting.length >= this.opts.maxQueue) {
        throw new ApiError('TooManyRequests', 'too many logins in progress; retry in a second', undefined, { 'Retry-After': '1' });
      }
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.running++;
    try {
      return await fn();
    } finally {
      this.running--;
      this.waiting.shift()?.();
    }
  }
}
