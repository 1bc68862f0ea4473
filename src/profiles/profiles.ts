import type { Principal } from '../access/authorizer.js';
import { ApiError, badRequest } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { assertName } from '../lib/names.js';
import { getPath } from '../lib/object-path.js';
import type { ResourceService } from '../resources/service.js';
import type { Envelope, ObjectKey, ObjectStore } from '../storage/store.js';

/**
 * Per-user data of the web UI — recently viewed objects, starred objects, preferences such as
 * the colour scheme — kept in the store (so it follows the user to every browser and replica) as
 * objects of the internal kind `UserProfile`, which has no resource routes. With auth off every
 * caller is the anonymous principal: one shared profile.
 */
export const PROFILE_KIND = 'UserProfile';

/** Most recently viewed objects kept. */
const MAX_RECENT = 20;
/** Most starred objects. */
const MAX_STARRED = 200;
const MAX_PREFERENCES = 20;
const PREFERENCE_KEY = /^[a-zA-Z][\w.-]{0,49}$/;
const MAX_PREFERENCE_LENGTH = 200;
/** Attempts of a read-modify-write that lost a race to another write of the same profile. */
const WRITE_ATTEMPTS = 5;

/** An object a profile points at. */
export interface ObjectRef {
  kind: string;
  project?: string;
  name: string;
}

interface StoredRef extends ObjectRef {
  /** When it was viewed or starred. */
  at: string;
}

interface ProfileSpec {
  /** createdAt of the user the profile belongs to: a re-created user starts afresh. */
  userCreatedAt: string;
  recent: StoredRef[];
  starred: StoredRef[];
  preferences: Record<string, string>;
}

/** A ref as the API answers it: only objects the caller may still read and that still exist. */
export interface ShownRef extends StoredRef {
  /** The kind's path segment (`dashboards`), so clients build URLs without a table of kinds. */
  plural: string;
  /** `spec.display.name` when the object has one. */
  title?: string;
}

export interface ProfileView {
  recent: ShownRef[];
  starred: ShownRef[];
  preferences: Record<string, string>;
}

export class ProfileService {
  private readonly principalKind?: KindDescriptor | undefined;

  constructor(private readonly o: { store: ObjectStore; registry: KindRegistry; service: ResourceService; now?: () => Date }) {
    this.principalKind = o.registry.all().find((d) => d.isPrincipal);
  }

  /** The caller's profile, each ref checked against the caller's permissions and the store. */
  async get(p: Principal): Promise<ProfileView> {
    const spec = (await this.load(p)).spec;
    return { recent: await this.shown(p, spec.recent), starred: await this.shown(p, spec.starred), preferences: spec.preferences };
  }

  /** Records a view: the object moves to the front of `recent`. */
  async recordView(p: Principal, body: unknown): Promise<void> {
    const ref = await this.checkRef(p, body);
    await this.modify(p, (spec) => {
      spec.recent = [{ ...ref, at: this.nowIso() }, ...spec.recent.filter((r) => !sameRef(r, ref))].slice(0, MAX_RECENT);
    });
  }

  async star(p: Principal, body: unknown): Promise<ProfileView> {
    const ref = await this.checkRef(p, body);
    await this.modify(p, (spec) => {
      if (spec.starred.some((r) => sameRef(r, ref))) return;
      if (spec.starred.length >= MAX_STARRED) throw badRequest(`at most ${MAX_STARRED} objects can be starred; unstar some first`);
      spec.starred = [...spec.starred, { ...ref, at: this.nowIso() }];
    });
    return this.get(p);
  }

  async unstar(p: Principal, body: unknown): Promise<ProfileView> {
    const ref = refOf(this.o.registry, body);
    await this.modify(p, (spec) => {
      spec.starred = spec.starred.filter((r) => !sameRef(r, ref));
    });
    return this.get(p);
  }

  /** Merges preferences; a null value removes the key. */
  async setPreferences(p: Principal, body: unknown): Promise<ProfileView> {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw badRequest('preferences must be a JSON object of string values, e.g. {"theme":"dark"}');
    const changes = Object.entries(body as Record<string, unknown>);
    for (const [k, v] of changes) {
      if (!PREFERENCE_KEY.test(k))
        throw badRequest(`preference name ${JSON.stringify(k)} must be 1 to 50 letters, digits, "_", "-" or ".", starting with a letter`);
      if (v !== null && (typeof v !== 'string' || v.length > MAX_PREFERENCE_LENGTH))
        throw badRequest(`preference ${k} must be a string of at most ${MAX_PREFERENCE_LENGTH} characters, or null to remove it`);
    }
    await this.modify(p, (spec) => {
      const next = { ...spec.preferences };
      for (const [k, v] of changes) {
        if (v === null) delete next[k];
        else next[k] = v as string;
      }
      if (Object.keys(next).length > MAX_PREFERENCES) throw badRequest(`at most ${MAX_PREFERENCES} preferences`);
      spec.preferences = next;
    });
    return this.get(p);
  }

  private nowIso(): string {
    return (this.o.now?.() ?? new Date()).toISOString();
  }

  /** A valid ref to an object the caller may read (it need not exist: a view of a deleted object is harmless). */
  private async checkRef(p: Principal, body: unknown): Promise<ObjectRef> {
    const ref = refOf(this.o.registry, body);
    await this.o.service.authorize(p, 'read', this.o.registry.byName(ref.kind)!, ref.project, ref.name);
    return ref;
  }

  private async shown(p: Principal, refs: StoredRef[]): Promise<ShownRef[]> {
    const out: ShownRef[] = [];
    for (const r of refs) {
      const d = this.o.registry.byName(r.kind);
      if (!d) continue;
      try {
        await this.o.service.authorize(p, 'read', d, r.project, r.name);
      } catch {
        continue; // no longer readable: not shown (and nothing said about it)
      }
      const obj = await this.o.store.get({ kind: d.kind, project: d.scope === 'project' ? (r.project ?? '') : '', name: r.name });
      if (!obj) continue;
      const title = getPath(obj, 'spec.display.name');
      out.push({ ...r, plural: d.plural, ...(typeof title === 'string' && title.trim() ? { title } : {}) });
    }
    return out;
  }

  private key(p: Principal): ObjectKey {
    return { kind: PROFILE_KIND, project: '', name: p.name };
  }

  /** The stored profile, or an empty one (also when it belonged to an earlier user of the same name). */
  private async load(p: Principal): Promise<{ spec: ProfileSpec; stored?: Envelope }> {
    const userCreatedAt = await this.userCreatedAt(p);
    const stored = await this.o.store.get(this.key(p));
    const spec = stored?.spec as ProfileSpec | undefined;
    if (stored && spec?.userCreatedAt === userCreatedAt) return { spec: structuredClone(spec), stored };
    return { spec: { userCreatedAt, recent: [], starred: [], preferences: {} }, ...(stored ? { stored } : {}) };
  }

  private async userCreatedAt(p: Principal): Promise<string> {
    if (p.anonymous || !this.principalKind) return '';
    return (await this.o.store.get({ kind: this.principalKind.kind, project: '', name: p.name }))?.metadata.createdAt ?? '';
  }

  /** Read, change, write with the version read; again when another write came in between. */
  private async modify(p: Principal, change: (spec: ProfileSpec) => void): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const { spec, stored } = await this.load(p);
      change(spec);
      const at = this.nowIso();
      try {
        if (stored) {
          await this.o.store.update(
            { kind: PROFILE_KIND, metadata: { ...stored.metadata, version: stored.metadata.version + 1, updatedAt: at }, spec },
            { expectedVersion: stored.metadata.version },
          );
        } else {
          await this.o.store.create({ kind: PROFILE_KIND, metadata: { name: p.name, createdAt: at, updatedAt: at, version: 0 }, spec });
        }
        return;
      } catch (e) {
        const raced = e instanceof ApiError && (e.reason === 'Conflict' || e.reason === 'AlreadyExists' || e.reason === 'NotFound');
        if (!raced || attempt >= WRITE_ATTEMPTS) throw e;
      }
    }
  }
}

/** `{kind, project?, name}` checked against the registry: a known kind, valid names, a project exactly for project kinds. */
export function refOf(registry: KindRegistry, body: unknown): ObjectRef {
  const b = (body ?? {}) as Record<string, unknown>;
  if (typeof b.kind !== 'string') throw badRequest('kind is required, e.g. {"kind":"Dashboard","project":"p","name":"n"}');
  const d = registry.byName(b.kind);
  if (!d) throw badRequest(`unknown kind ${JSON.stringify(b.kind)}`);
  assertName(b.name, 'name');
  if (d.scope === 'project') {
    assertName(b.project, 'project');
    return { kind: d.kind, project: b.project, name: b.name };
  }
  if (b.project !== undefined && b.project !== '') throw badRequest(`${d.kind} is not in a project: drop "project"`);
  return { kind: d.kind, name: b.name };
}

function sameRef(a: ObjectRef, b: ObjectRef): boolean {
  return a.kind === b.kind && (a.project ?? '') === (b.project ?? '') && a.name === b.name;
}
