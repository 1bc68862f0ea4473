import { randomUUID } from 'node:crypto';
import { ApiError } from '../errors.js';
import type { Envelope, ObjectKey, Store } from '../storage/store.js';

/**
 * Sessions live in the store (every replica sees them) as objects of the internal kind
 * `Session`, which has no routes. Revoking a session deletes it.
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
}

export type Session = Envelope & { spec: SessionSpec };

/** Reads of objects; `synced`: the caller has just called `Store.sync()` (see ReadCache). */
export interface Reads {
  get(key: ObjectKey, opts?: { synced?: boolean }): Promise<Envelope | undefined>;
}

const key = (id: string) => ({ kind: SESSION_KIND, project: '', name: id });

export class SessionStore {
  /** `reads` serves `get` (a ReadCache in the server; the store itself by default). */
  constructor(
    private readonly store: Store,
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

  /** The live session, or undefined when it never existed, was revoked or has expired. */
  async get(id: string, opts: { synced?: boolean } = {}): Promise<Session | undefined> {
    const s = (await this.reads.get(key(id), opts)) as Session | undefined;
    if (!s || Date.parse(s.spec.expiresAt) <= this.now()) return undefined;
    return s;
  }

  /** Replaces the expected refresh id; false when another request rotated it first. */
  async rotate(s: Session, refreshId: string, ttlMs: number): Promise<boolean> {
    const next: Session = {
      ...s,
      metadata: { ...s.metadata, updatedAt: new Date(this.now()).toISOString(), version: s.metadata.version + 1 },
      spec: { ...s.spec, refreshId, expiresAt: new Date(this.now() + ttlMs).toISOString() },
    };
    try {
      await this.store.update(next, { expectedVersion: s.metadata.version });
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
