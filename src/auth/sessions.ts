import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { CredentialChange } from '../resources/credentials.js';
import type { Envelope, ObjectKey, ObjectStore } from '../storage/store.js';

/**
 * Sessions live in the store (every replica sees them) as objects of the internal kind
 * `Session`, which has no routes. Revoking a session deletes it; a change of its user's
 * credentials ends it too (it no longer holds their stamp).
 */
export const SESSION_KIND = 'Session';

export interface SessionSpec {
  user: string;
  /** createdAt of the user the session was opened for: a re-created user gets no old sessions. */
  userCreatedAt: string;
  /** native, oidc or oauth. */
  provider: string;
  slug: string;
  /** Id of the only refresh token that may be used next. */
  refreshId: string;
  expiresAt: string;
  /** credentialStamp of the user the session was opened for: a changed password ends the session. */
  credential: string;
  /** The stamp before its own user changed their credentials through this session (see `keepCaller`). */
  previousCredential?: string;
  /** The identity provider's refresh token, encrypted (see UpstreamRefresher): a refresh reads the user's groups again. */
  upstream?: string;
}

export type Session = Envelope & { spec: SessionSpec };

/** Whether the session still stands for a user whose credentials have this stamp. */
export function holdsCredential(s: Session, stamp: string): boolean {
  return s.spec.credential === stamp || s.spec.previousCredential === stamp;
}

/** Why a session of a user whose password changed (or was reset or removed) is refused. */
export const CREDENTIALS_CHANGED =
  "this session has ended because the user's password changed (or was reset or removed) after it began; log in again";

/** How often `keepCaller` re-reads a session that a refresh rotated meanwhile. */
const KEEP_ATTEMPTS = 5;

/** Reads of objects; `synced`: the caller has just called `Store.sync()` (see ReadCache). */
export interface Reads {
  get(key: ObjectKey, opts?: { synced?: boolean | undefined }): Promise<Envelope | undefined>;
}

const key = (id: string) => ({ kind: SESSION_KIND, project: '', name: id });

export class SessionStore {
  /** `reads` serves `get` (a ReadCache in the server; the store itself by default). */
  constructor(
    private readonly store: ObjectStore,
    private readonly reads: Reads = store,
    private readonly now: () => number = Date.now,
  ) {}

  async open(spec: Omit<SessionSpec, 'expiresAt'>, ttlMs: number): Promise<Session> {
    const at = new Date(this.now()).toISOString();
    const session: Session = {
      kind: SESSION_KIND,
      metadata: { name: randomUUID(), createdAt: at, updatedAt: at, version: 0 },
      spec: { ...spec, expiresAt: new Date(this.now() + ttlMs).toISOString() },
    };
    await this.store.create(session);
    return session;
  }

  /**
   * The live session, or undefined when it never existed, was revoked or has expired. `store`:
   * read the store itself, not the cache (for a reader woken by the very event that changed it,
   * which the cache may not have seen yet).
   */
  async get(id: string, opts: { synced?: boolean; store?: boolean } = {}): Promise<Session | undefined> {
    const s = (await (opts.store ? this.store.get(key(id)) : this.reads.get(key(id), opts))) as Session | undefined;
    if (!s || Date.parse(s.spec.expiresAt) <= this.now()) return undefined;
    return s;
  }

  /**
   * Replaces the expected refresh id; false when another request rotated it first. `stamp`: the
   * user's credential stamp now; once it is the session's new one, the previous one is dropped.
   */
  async rotate(s: Session, refreshId: string, ttlMs: number, stamp: string): Promise<Session | undefined> {
    const { previousCredential, ...spec } = s.spec;
    const next: Session = {
      ...s,
      metadata: { ...s.metadata, updatedAt: new Date(this.now()).toISOString(), version: s.metadata.version + 1 },
      spec: {
        ...spec,
        ...(previousCredential !== undefined && stamp !== spec.credential ? { previousCredential } : {}),
        refreshId,
        expiresAt: new Date(this.now() + ttlMs).toISOString(),
      },
    };
    return (await this.replace(next, s.metadata.version)) ? next : undefined;
  }

  /**
   * Keeps the caller's own session through a change of their own credentials (a user changing
   * their password stays signed in where they did it; every other session of theirs ends).
   * Called before the change is written: the session then holds both stamps, so it works before
   * and after the write lands, and if the write fails. A session that no longer holds the old
   * stamp (ended by an earlier change) stays ended; a change by anyone else keeps nothing.
   */
  async keepCaller(c: CredentialChange): Promise<void> {
    const id = c.principal.sessionId;
    if (!id || c.principal.internal || c.principal.name !== c.after.metadata.name) return;
    for (let attempt = 0; attempt < KEEP_ATTEMPTS; attempt++) {
      const s = (await this.store.get(key(id))) as Session | undefined;
      if (!s || s.spec.user !== c.principal.name || s.spec.userCreatedAt !== c.before.metadata.createdAt || !holdsCredential(s, c.from))
        return;
      if (Date.parse(s.spec.expiresAt) <= this.now()) return;
      const metadata = { ...s.metadata, updatedAt: new Date(this.now()).toISOString(), version: s.metadata.version + 1 };
      const next: Session = { ...s, metadata, spec: { ...s.spec, credential: c.to, previousCredential: c.from } };
      if (await this.replace(next, s.metadata.version)) return;
    }
  }

  /** Writes `next` if the stored session is still at `version`; false when it changed or is gone. */
  private async replace(next: Session, version: number): Promise<boolean> {
    try {
      await this.store.update(next, { expectedVersion: version });
      return true;
    } catch (e) {
      if (e instanceof ApiError && (e.reason === 'Conflict' || e.reason === 'NotFound')) return false;
      throw e;
    }
  }

  async revoke(id: string): Promise<void> {
    await this.store.delete(key(id)).catch((e: unknown) => {
      if (!(e instanceof ApiError && e.reason === 'NotFound')) throw e;
    });
  }

  /** Stores a new provider refresh token (sealed) in the session, if it is still at `version`. */
  async setUpstream(s: Session, upstream: string): Promise<boolean> {
    const metadata = { ...s.metadata, updatedAt: new Date(this.now()).toISOString(), version: s.metadata.version + 1 };
    return this.replace({ ...s, metadata, spec: { ...s.spec, upstream } }, s.metadata.version);
  }

  /** Deletes expired sessions; returns how many. */
  async sweep(): Promise<number> {
    let n = 0;
    for (const s of (await this.store.list({ kind: SESSION_KIND })) as Session[]) {
      if (Date.parse(s.spec.expiresAt) <= this.now()) {
        await this.revoke(s.metadata.name);
        n++;
      }
    }
    return n;
  }
}
