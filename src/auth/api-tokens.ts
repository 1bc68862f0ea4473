import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { ApiError, forbidden, notFound, unauthorized } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import type { Envelope, ObjectStore } from '../storage/store.js';
import type { NarrowedPermission, Principal } from '../access/authorizer.js';
import type { Reads } from './sessions.js';
import type { TokenRequest } from './token-request.js';
import { auditDraft } from '../audit/drafts.js';
import { MANAGER } from '../resources/managers.js';
import type { AuditDraft } from '../storage/audit-types.js';

/**
 * API tokens are objects of the internal kind `ApiToken` (no routes of their own), named by their
 * id: `dp_<id>_<secret>` is looked up by its id in one read, and only a SHA-256 of the whole token
 * is stored. Revoking deletes the object, which every replica sees at its next request.
 */
export const API_TOKEN_KIND = 'ApiToken';
/** Every API token starts with this (our JWTs and providers' start with "eyJ"). */
export const API_TOKEN_PREFIX = 'dp_';
const FORMAT = /^dp_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
/** Last-used times are written at most this often per token (not one write per request). */
const LAST_USED_EVERY_MS = 60_000;

export interface TokenOwner {
  kind: string;
  name: string;
  project?: string;
}

export interface ApiTokenSpec {
  owner: TokenOwner;
  /** createdAt of the owner: a re-created owner of the same name gets none of the old tokens. */
  ownerCreatedAt: string;
  name: string;
  /** SHA-256 (hex) of the whole token. */
  hash: string;
  expiresAt: string;
  permissions?: NarrowedPermission[];
  createdBy: string;
  lastUsedAt?: string;
}

export type ApiToken = Envelope & { spec: ApiTokenSpec };

/** A token as lists show it: never its hash. */
export interface TokenInfo {
  id: string;
  name: string;
  owner: TokenOwner;
  createdAt: string;
  createdBy: string;
  expiresAt: string;
  lastUsedAt?: string;
  permissions?: NarrowedPermission[];
}

const sha256 = (text: string) => createHash('sha256').update(text).digest();
const key = (id: string) => ({ kind: API_TOKEN_KIND, project: '', name: id });

/** The stored token record as shown to its managers. */
function infoOf(t: ApiToken): TokenInfo {
  const s = t.spec;
  return {
    id: t.metadata.name,
    name: s.name,
    owner: s.owner,
    createdAt: t.metadata.createdAt,
    createdBy: s.createdBy,
    expiresAt: s.expiresAt,
    ...(s.lastUsedAt ? { lastUsedAt: s.lastUsedAt } : {}),
    ...(s.permissions ? { permissions: s.permissions } : {}),
  };
}

/** Creating, listing, revoking and checking API tokens. Permission checks are the caller's (token-routes.ts). */
export class ApiTokens {
  constructor(
    private readonly o: {
      store: ObjectStore;
      /** Reads of tokens and owners (a ReadCache in the server). */
      reads: Reads;
      registry: KindRegistry;
      now?: () => number;
      /** Turns a token's owner object into the principal the token acts as (groups and roles of a user). */
      principalOf?: (owner: Envelope) => Partial<Principal>;
      /** Unexpired tokens one owner may hold (security.authentication.max_tokens_per_owner); no cap when absent. */
      maxPerOwner?: number;
    },
  ) {}

  private now(): number {
    return (this.o.now ?? Date.now)();
  }

  /**
   * A new token for `owner` (an existing object): the secret, returned only here, and its record.
   * An owner holding `maxPerOwner` unexpired tokens gets a 429 instead; the count and the write
   * are made alone among the owner's token creations (on every replica), so parallel requests
   * cannot pass the cap together.
   */
  create(by: Principal, d: KindDescriptor, owner: Envelope, req: TokenRequest): Promise<{ token: string; info: TokenInfo }> {
    const o = ownerOf(d, owner);
    return this.o.store.exclusive(`api-tokens/${o.kind}/${o.project ?? ''}/${o.name}`, async () => {
      await this.checkCap(d, o, owner.metadata.createdAt);
      return this.write(by, d, owner, req);
    });
  }

  /** 429 when the owner already holds the most unexpired tokens allowed; Retry-After: until the first of them expires. */
  private async checkCap(d: KindDescriptor, owner: TokenOwner, ownerCreatedAt: string): Promise<void> {
    const max = this.o.maxPerOwner;
    if (max === undefined) return;
    const live = (await this.list(owner, ownerCreatedAt)).filter((t) => Date.parse(t.expiresAt) > this.now());
    if (live.length < max) return;
    const firstExpiry = Math.min(...live.map((t) => Date.parse(t.expiresAt)));
    const path = `${d.scope === 'project' ? `/api/v1/projects/${owner.project}` : '/api/v1'}/${d.plural}/${owner.name}/tokens`;
    const dashctl = d.isPrincipal
      ? ''
      : ` --owner ${d.kind.toLowerCase()}/${owner.name}${owner.project !== undefined ? ` -p ${owner.project}` : ''}`;
    throw new ApiError(
      'TooManyRequests',
      `${d.kind} "${owner.name}" has ${live.length} unexpired API tokens, the most security.authentication.max_tokens_per_owner allows (${max}); ` +
        `revoke tokens that are no longer used first: list them with GET ${path} (dashctl token list${dashctl}), revoke one with DELETE ${path}/{id} (dashctl token revoke ID${dashctl})`,
      undefined,
      { 'Retry-After': String(Math.max(1, Math.ceil((firstExpiry - this.now()) / 1000))) },
    );
  }

  private async write(by: Principal, d: KindDescriptor, owner: Envelope, req: TokenRequest): Promise<{ token: string; info: TokenInfo }> {
    const at = new Date(this.now()).toISOString();
    for (let attempt = 0; ; attempt++) {
      const id = randomBytes(8).toString('hex');
      const token = `${API_TOKEN_PREFIX}${id}_${randomBytes(32).toString('base64url')}`;
      const record: ApiToken = {
        kind: API_TOKEN_KIND,
        metadata: { name: id, createdAt: at, updatedAt: at, version: 0 },
        spec: {
          owner: ownerOf(d, owner),
          ownerCreatedAt: owner.metadata.createdAt,
          name: req.name,
          hash: sha256(token).toString('hex'),
          expiresAt: req.expiresAt.toISOString(),
          ...(req.permissions ? { permissions: req.permissions } : {}),
          createdBy: by.name,
        },
      };
      try {
        await this.o.store.create(record, {
          writer: { by: by.name, manager: MANAGER.apiTokens },
          audit: [this.audited(by, 'token-create', record)],
        });
        return { token, info: infoOf(record) };
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === 'AlreadyExists') || attempt >= 3) throw e;
      }
    }
  }

  /**
   * The tokens of one owner, newest first. `ownerCreatedAt` is the owner's as stored now: the
   * tokens of an earlier owner of the same name (deleted, then re-created) are not its own.
   */
  async list(owner: TokenOwner, ownerCreatedAt: string): Promise<TokenInfo[]> {
    const all = (await this.o.store.list({ kind: API_TOKEN_KIND })) as ApiToken[];
    return all
      .filter((t) => sameOwner(t.spec.owner, owner) && t.spec.ownerCreatedAt === ownerCreatedAt)
      .map(infoOf)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  }

  /** One token of `owner` (404 when it has no token of that id); `ownerCreatedAt` as for `list`. */
  async get(owner: TokenOwner, ownerCreatedAt: string, id: string): Promise<ApiToken> {
    const t = /^[0-9a-f]{16}$/.test(id) ? ((await this.o.store.get(key(id))) as ApiToken | undefined) : undefined;
    if (!t || !sameOwner(t.spec.owner, owner) || t.spec.ownerCreatedAt !== ownerCreatedAt)
      throw notFound(`no token "${id}" here (see the list of tokens)`);
    return t;
  }

  async revoke(by: Principal, owner: TokenOwner, ownerCreatedAt: string, id: string): Promise<ApiToken> {
    const t = await this.get(owner, ownerCreatedAt, id);
    await this.o.store.delete(key(id), { audit: [this.audited(by, 'token-revoke', t)] }).catch((e: unknown) => {
      if (!(e instanceof ApiError && e.reason === 'NotFound')) throw e;
    });
    return t;
  }

  /**
   * The principal a presented token acts as. Unknown, revoked, altered and expired tokens, and
   * tokens whose owner was deleted (or deleted and re-created), are refused. The caller has just
   * called `store.sync()`: a revocation on any replica holds.
   */
  async authenticate(token: string): Promise<{ principal: Principal; record: ApiToken }> {
    const m = FORMAT.exec(token);
    if (!m) throw unauthorized('this API token is malformed; tokens look like dp_<16 hex digits>_<43 characters>, copy it again');
    const t = (await this.o.reads.get(key(m[1]), { synced: true })) as ApiToken | undefined;
    const presented = sha256(token);
    if (!t || !timingSafeEqual(presented, Buffer.from(t.spec.hash, 'hex')))
      throw unauthorized('this API token is not valid (revoked, or never issued); create a new one');
    if (Date.parse(t.spec.expiresAt) <= this.now()) throw unauthorized(`this API token expired at ${t.spec.expiresAt}; create a new one`);
    const d = this.o.registry.byName(t.spec.owner.kind);
    const owner = d
      ? await this.o.reads.get({ kind: d.kind, project: t.spec.owner.project ?? '', name: t.spec.owner.name }, { synced: true })
      : undefined;
    if (!d || !owner || owner.metadata.createdAt !== t.spec.ownerCreatedAt)
      throw unauthorized(`the ${t.spec.owner.kind} this API token belongs to no longer exists`);
    const token_ = { id: t.metadata.name, ...(t.spec.permissions ? { permissions: t.spec.permissions } : {}) };
    const subject = d.isPrincipal ? {} : { subject: { ...t.spec.owner } };
    const name = d.principalName ? d.principalName(t.spec.owner.project, t.spec.owner.name) : t.spec.owner.name;
    return {
      principal: {
        name,
        anonymous: false,
        ...subject,
        ...this.o.principalOf?.(owner),
        token: token_,
        expiresAt: Date.parse(t.spec.expiresAt),
        synced: true,
      },
      record: t,
    };
  }

  /** Whether the token `id` still authenticates: not revoked, not expired, its owner the same object. */
  async isLive(id: string): Promise<boolean> {
    // the store itself: the change that woke the caller may not have reached the caches yet
    const t = (await this.o.store.get(key(id))) as ApiToken | undefined;
    if (!t || Date.parse(t.spec.expiresAt) <= this.now()) return false;
    const d = this.o.registry.byName(t.spec.owner.kind);
    const owner = d ? await this.o.store.get({ kind: d.kind, project: t.spec.owner.project ?? '', name: t.spec.owner.name }) : undefined;
    return owner !== undefined && owner.metadata.createdAt === t.spec.ownerCreatedAt;
  }

  /** Records the token's use (last-used time and audit entry), at most once a minute; false when it was recorded lately (or the record changed meanwhile). */
  async touch(t: ApiToken, by: Principal): Promise<boolean> {
    const now = this.now();
    if (t.spec.lastUsedAt && now - Date.parse(t.spec.lastUsedAt) < LAST_USED_EVERY_MS) return false;
    const at = new Date(now).toISOString();
    const next: ApiToken = {
      ...t,
      metadata: { ...t.metadata, updatedAt: at, version: t.metadata.version + 1 },
      spec: { ...t.spec, lastUsedAt: at },
    };
    try {
      await this.o.store.update(next, { expectedVersion: t.metadata.version, audit: [this.audited(by, 'token-use', t)] });
      return true;
    } catch (e) {
      if (e instanceof ApiError && (e.reason === 'Conflict' || e.reason === 'NotFound')) return false;
      throw e;
    }
  }

  /** The audit entry of a token's creation, use or revocation: the owner as the object, never the secret. */
  private audited(by: Principal, action: 'token-create' | 'token-use' | 'token-revoke', t: ApiToken): AuditDraft {
    const o = t.spec.owner;
    return auditDraft(
      by,
      { action, kind: o.kind, ...(o.project !== undefined ? { project: o.project } : {}), name: o.name, token: t.metadata.name },
      new Date(this.now()),
    );
  }

  /** Deletes expired tokens; returns how many. */
  async sweep(): Promise<number> {
    let n = 0;
    for (const t of (await this.o.store.list({ kind: API_TOKEN_KIND })) as ApiToken[]) {
      if (Date.parse(t.spec.expiresAt) > this.now()) continue;
      await this.o.store.delete(key(t.metadata.name)).catch(() => undefined);
      n++;
    }
    return n;
  }
}

/** The owner reference of a token for `obj` of kind `d`. */
export function ownerOf(d: KindDescriptor, obj: Envelope): TokenOwner {
  return { kind: d.kind, name: obj.metadata.name, ...(d.scope === 'project' ? { project: obj.metadata.project } : {}) };
}

function sameOwner(a: TokenOwner, b: TokenOwner): boolean {
  return a.kind === b.kind && a.name === b.name && (a.project ?? '') === (b.project ?? '');
}

/** Refuses creating tokens from a request authenticated by a narrowed token (a new token would not be narrowed). */
export function refuseNarrowedCreator(p: Principal): void {
  if (p.token?.permissions)
    throw forbidden('a narrowed API token cannot create tokens (the new one could do more); use a session or an unrestricted token');
}
