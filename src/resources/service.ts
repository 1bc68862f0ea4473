import type { Authorizer, AuthzTarget, Principal, Visible } from '../access/authorizer.js';
import type { PasswordHasher } from '../access/passwords.js';
import type { ResolvedConfig } from '../config.js';
import type { SecretBox } from '../secrets/secret-box.js';
import { seal } from '../secrets/sealing.js';
import { ApiError, alreadyExists, invalid, notFound, preconditionFailed, type ErrorDetail } from '../errors.js';
import type { HookCall, HookContext, KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { schemaErrors } from '../lib/schema-errors.js';
import type { PluginRegistry } from '../plugins/registry.js';
import {
  keyOf,
  type Envelope,
  type Metadata,
  type ObjectKey,
  type ObjectStore,
  type StoredText,
  type WriteRecordOptions,
} from '../storage/store.js';
import { isObj } from '../lib/is-obj.js';
import { jsonOf } from '../lib/json-of.js';
import { KeyedMutex } from '../storage/mutex.js';
import { ListCache } from '../storage/read-cache.js';
import {
  isExpired,
  listPage,
  listTextPage,
  needsNoSpec,
  projectMissing,
  requireProject,
  type ListOptions,
  type ListResult,
} from './listing.js';
import { credentialStamp, type CredentialChange } from './credentials.js';
import { keepOmitted, mask, restoreMasked } from './masking.js';
import { getPath } from '../lib/object-path.js';
import { identify, stampMetadata, type Target } from './prepare.js';
import { forgetSubject } from './forget-subject.js';
import { grantProblems, namesGrantees, type GrantChecks } from './grantees.js';
import { MANAGER, writerOf } from './managers.js';
import { auditDraft } from '../audit/drafts.js';
import type { AuditDraft } from '../storage/audit-types.js';
import { keepStoredSecrets, sameContent } from './unchanged.js';
import { datasourceWarnings } from './datasource-warnings.js';

export interface ServiceOptions {
  registry: KindRegistry;
  store: ObjectStore;
  plugins: PluginRegistry;
  authorizer: Authorizer;
  passwords: PasswordHasher;
  /** Encrypts the kinds' `encrypted` fields before they are stored. */
  secrets: SecretBox;
  /** The server configuration, for hooks. */
  config: Readonly<ResolvedConfig>;
  /** The clock (tests may pin it). */
  now?: () => Date;
  /** Called before an update that changes a principal's credentials is written (sessions keep the caller's own). */
  credentialsChanging?(change: CredentialChange): Promise<void>;
  /** Whether a binding or a group names this principal (the RBAC grants, as stored now): a sign-up may not take such a name. */
  namedByGrants?(s: { kind: string; name: string; project?: string }): Promise<boolean>;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** The version the caller last saw (If-Match); a different stored version is a 412. */
  ifMatch?: number;
  /** Internal (reaper): act on an object whose ttl has passed. */
  evenIfExpired?: boolean;
  /** Internal (reaper): only if the object still has this updatedAt (not re-created meanwhile). */
  ifUpdatedAt?: string;
  /** Internal (restore of a deleted object): create at this version, continuing its history. */
  continueHistoryAt?: number;
  /** The field manager making the write (`dashctl`, `web-ui`...; default `api`), recorded with it. */
  manager?: string;
  /** An update whose content equals what is stored writes nothing (`UpdateResult.unchanged`); otherwise it is a write like any other. */
  skipUnchanged?: boolean;
}

/** What an update did: the object as stored now (masked), and whether the write changed nothing. */
export interface UpdateResult {
  object: Envelope;
  /**
   * The request held what is stored already (normalised, server-owned metadata aside, secrets
   * compared as plain values): nothing was written, `object` is the stored object as it was.
   */
  unchanged: boolean;
}

/** Stands in for an absent project when only validating. */
const VALIDATE_PROJECT = 'validation';

/** The lock (Store.exclusive) of the writes that name principals in grants, sign-ups and principal deletions. */
const GRANTEES_LOCK = 'grantees';

/** How often an update without If-Match re-reads after losing a race before giving up. */
const MAX_UPDATE_RETRIES = 50;

/**
 * The one pipeline every write takes (HTTP, dashctl, provisioning, reaper), readable top to bottom:
 * authorize, identify, normalise older forms, stamp metadata, schema-validate, semantic-validate,
 * (an update that changes nothing stops here), write with its writer. Responses are masked here,
 * so no caller can leak a sensitive field.
 */
export class ResourceService {
  private readonly hookContext: HookContext;
  private readonly now: () => Date;
  private readonly updates = new KeyedMutex();
  private readonly grantChecks: GrantChecks;
  /** Whole scopes of datasources, for the warnings (src/storage/read-cache.ts). */
  private readonly datasourceLists: ListCache;

  /** The store the service writes to (for read-only companions such as history). */
  get store(): ObjectStore {
    return this.opts.store;
  }

  constructor(private readonly opts: ServiceOptions) {
    this.now = opts.now ?? (() => new Date());
    this.hookContext = {
      store: opts.store,
      plugins: opts.plugins,
      kinds: opts.registry.scopes,
      projectKind: opts.registry.projectKind.kind,
      passwords: opts.passwords,
      config: opts.config,
    };
    this.grantChecks = { store: opts.store, registry: opts.registry, ...(opts.namedByGrants ? { namedByGrants: opts.namedByGrants } : {}) };
    // the kinds warnings list whole scopes of (each write of a kind that uses datasources lists two)
    const listed = opts.registry.all().flatMap((k) => (k.usesDatasources ? [k.usesDatasources.project, k.usesDatasources.global] : []));
    this.datasourceLists = new ListCache(opts.store, [...new Set(listed)]);
  }

  async get(p: Principal, d: KindDescriptor, project: string, name: string): Promise<Envelope> {
    await this.opts.authorizer.authorize(p, 'read', authzTarget(d, project, name));
    return mask(d, await this.current(d, { kind: d.kind, project: scopeOf(d, project) ?? '', name }));
  }

  /**
   * `get` as JSON text: the stored text itself when nothing in it needs masking or an expiry
   * check (no parse and re-serialisation of the spec), else the masked object serialised.
   */
  async getText(p: Principal, d: KindDescriptor, project: string, name: string): Promise<StoredText> {
    if (!servesStoredText(d)) return textOf(await this.get(p, d, project, name));
    await this.opts.authorizer.authorize(p, 'read', authzTarget(d, project, name));
    const key = { kind: d.kind, project: scopeOf(d, project) ?? '', name };
    return (await this.opts.store.getText(key, { synced: p.synced })) ?? notFoundError(d, key);
  }

  async list(p: Principal, d: KindDescriptor, q: ListOptions): Promise<ListResult> {
    const readable = await this.readableFor(p, d, q);
    const page = await listPage(this.opts.store, d, q, readable, this.now().getTime());
    return { ...page, items: page.items.map((o) => mask(d, o)) };
  }

  /** `list` as JSON texts: the stored texts when the list needs nothing from the specs (see `getText`). */
  async listText(p: Principal, d: KindDescriptor, q: ListOptions): Promise<{ items: StoredText[]; continueToken?: string }> {
    if (!servesStoredText(d) || q.metadataOnly || !needsNoSpec(d, q)) {
      const page = await this.list(p, d, q);
      const shown = q.metadataOnly ? (o: Envelope) => new MetadataOnlyText(o.kind, o.metadata) : textOf;
      return { ...page, items: page.items.map(shown) };
    }
    return listTextPage(this.opts.store, d, q, await this.readableFor(p, d, q));
  }

  /** Which objects of `d` the caller may read across projects (as a list of them without a project: Forbidden for a global kind with none). */
  readableAcross(p: Principal, d: KindDescriptor): Promise<Visible> {
    return this.readableFor(p, d, {});
  }

  /**
   * Checks the caller may list `d` here (403 when nothing may be read), then that a project named
   * in the URL path exists (400); which objects they may see.
   */
  private async readableFor(p: Principal, d: KindDescriptor, q: ListOptions): Promise<Visible> {
    if (d.scope === 'project' && q.project !== undefined) {
      const readable = await this.opts.authorizer.readable(p, d.kind, q.project);
      if (q.projectInPath) await requireProject(this.opts.store, this.opts.registry.projectKind.kind, q.project, p.synced);
      return readable;
    }
    if (d.scope === 'project' || d.isProjectScope) return this.opts.authorizer.readable(p, d.kind);
    return this.opts.authorizer.readable(p, d.kind, '');
  }

  async create(p: Principal, d: KindDescriptor, body: unknown, target: Target, w: WriteOptions = {}): Promise<Envelope> {
    const named = isObj(body) && isObj(body.metadata) ? body.metadata.project : undefined;
    const project = target.project ?? (named as string | undefined);
    return this.inScope(d, project, () => this.createNow(p, d, body, target, w));
  }

  private async createNow(p: Principal, d: KindDescriptor, body: unknown, target: Target, w: WriteOptions): Promise<Envelope> {
    const obj = this.prepare(d, body, target, { version: w.continueHistoryAt ?? 0 });
    const project = scopeOf(d, obj.metadata.project);
    const authz = authzTarget(d, project, obj.metadata.name);
    await this.opts.authorizer.authorize(p, 'create', authz);
    const signUp = d.anonymousCreateUnless !== undefined && (await this.opts.authorizer.isSignUp(p, authz));
    const parent = project === undefined ? undefined : this.projectKey(project);
    // the text (from the store's objects read lately; no parse, no sync): only its existence matters, and the store checks it again as it writes
    if (parent && !(await this.opts.store.getText(parent, { synced: true }))) throw projectMissing(project!);
    restoreMasked(d, obj, undefined);
    // the server's own users (an identity provider's), and those created for one, have no password
    if (!p.internal && !hasExternalIdentities(d, obj)) keepOmitted(d, obj, undefined);
    const call: HookCall = { principal: p, ...(signUp ? { signUp } : {}) };
    await this.validate(d, obj, call);
    await this.authorizeSecretRefs(p, d, obj);
    await this.authorizeContents(p, d, obj, undefined);
    const companions = await this.companionsOf(d, obj, call);
    if (w.dryRun) {
      await grantProblems(this.grantChecks, d, obj, call);
      if (await this.opts.store.get(keyOf(obj))) throw alreadyExists(`${d.kind} "${obj.metadata.name}" already exists`);
      return mask(d, obj);
    }
    await d.hooks?.beforeWrite?.(obj, this.hookContext, call);
    seal(d, obj, undefined, this.opts.secrets);
    await this.dropExpired(d, keyOf(obj));
    try {
      const record = this.recordOf(d, p, w, w.continueHistoryAt !== undefined);
      const audit = [obj, ...companions].map((o) => this.audited(p, w, 'create', o));
      await this.grantGuard(d, obj, call, () =>
        this.opts.store.create(obj, {
          ...(parent ? { parent } : {}),
          ...(companions.length ? { also: companions } : {}),
          ...record,
          audit,
        }),
      );
    } catch (e) {
      if (e instanceof ApiError && e.reason === 'NotFound' && project !== undefined) throw projectMissing(project);
      throw e;
    }
    return mask(d, obj);
  }

  /** Replaces an object; with `skipUnchanged`, a body holding what is stored already changes nothing (see `UpdateResult`). */
  async update(
    p: Principal,
    d: KindDescriptor,
    body: unknown,
    target: { name: string; project?: string },
    w: WriteOptions = {},
  ): Promise<UpdateResult> {
    const key: ObjectKey = { kind: d.kind, project: scopeOf(d, target.project) ?? '', name: target.name };
    await this.opts.authorizer.authorize(p, 'update', authzTarget(d, target.project, target.name));
    // Updates of one object in this process queue up; the retry loop covers other replicas.
    return this.updates.run(`${key.kind}/${key.project}/${key.name}`, () =>
      this.inScope(d, target.project, () => this.updateLoop(p, d, key, body, target, w)),
    );
  }

  private async updateLoop(
    p: Principal,
    d: KindDescriptor,
    key: ObjectKey,
    body: unknown,
    target: Target,
    w: WriteOptions,
  ): Promise<UpdateResult> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.current(d, key);
      const version = current.metadata.version;
      if (w.ifMatch !== undefined && version !== w.ifMatch) throw stale(d, key, version, w.ifMatch);
      const obj = this.prepare(d, body, target, { createdAt: current.metadata.createdAt, version: version + 1 });
      immutableProblems(d, obj, current);
      restoreMasked(d, obj, current);
      keepOmitted(d, obj, current);
      const call = { principal: p, current };
      await this.validate(d, obj, call);
      await this.authorizeSecretRefs(p, d, obj);
      await this.authorizeContents(p, d, obj, current);
      if (await this.changesNothing(d, obj, current, w.skipUnchanged === true)) return { object: mask(d, current), unchanged: true };
      if (w.dryRun) {
        await grantProblems(this.grantChecks, d, obj, call);
        return { object: mask(d, obj), unchanged: false };
      }
      await d.hooks?.beforeWrite?.(obj, this.hookContext, call);
      seal(d, obj, current, this.opts.secrets);
      await this.credentialsChanging(p, d, current, obj);
      try {
        await this.grantGuard(d, obj, call, () =>
          this.opts.store.update(obj, {
            expectedVersion: version,
            ...this.recordOf(d, p, w),
            audit: [this.audited(p, w, 'update', obj, version)],
          }),
        );
        return { object: mask(d, obj), unchanged: false };
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === 'Conflict')) throw e;
        if (w.ifMatch !== undefined)
          throw preconditionFailed(`${d.kind} "${key.name}" was changed by someone else; read it again and retry with its new version`);
        if (attempt >= MAX_UPDATE_RETRIES) throw new ApiError('Conflict', `${d.kind} "${key.name}" is being updated concurrently; retry`);
      }
    }
  }

  async delete(p: Principal, d: KindDescriptor, project: string | undefined, name: string, w: WriteOptions = {}): Promise<void> {
    const key: ObjectKey = { kind: d.kind, project: scopeOf(d, project) ?? '', name };
    await this.opts.authorizer.authorize(p, 'delete', authzTarget(d, project, name));
    const current = await this.current(d, key, w.evenIfExpired);
    if (w.ifMatch !== undefined && current.metadata.version !== w.ifMatch) throw stale(d, key, current.metadata.version, w.ifMatch);
    if (w.ifUpdatedAt !== undefined && current.metadata.updatedAt !== w.ifUpdatedAt)
      throw preconditionFailed(`${d.kind} "${name}" was written again`);
    if (w.dryRun) return;
    const children = d.isProjectScope ? { project: name, kinds: this.opts.registry.projectScoped().map((k) => k.kind) } : undefined;
    const remove = async () => {
      try {
        await this.opts.store.delete(key, {
          ...(w.ifMatch !== undefined ? { expectedVersion: w.ifMatch } : {}),
          ...(w.ifUpdatedAt !== undefined ? { expectedUpdatedAt: w.ifUpdatedAt } : {}),
          ...(children ? { children } : {}),
          audit: [this.audited(p, w, 'delete', current, current.metadata.version)],
        });
      } catch (e) {
        if (e instanceof ApiError && e.reason === 'Conflict')
          throw preconditionFailed(`${d.kind} "${name}" was changed by someone else; read it again and retry with its new version`);
        throw e;
      }
      if (d.subject === 'principal')
        await forgetSubject({ store: this.opts.store, registry: this.opts.registry, now: this.now }, d, scopeOf(d, project), name, p);
    };
    // a principal leaves every grant before a binding naming it can be written again (see grantGuard)
    await (d.subject === 'principal' ? this.opts.store.exclusive(GRANTEES_LOCK, remove) : remove());
  }

  /**
   * Runs `write` alone among the writes that name principals in grants (bindings, groups), the
   * self-service sign-ups and the deletions of principals, on every replica, right after
   * `grantProblems` found nothing: a binding cannot name a user deleted while it was checked, and
   * a sign-up cannot take a name a grant was given while it was checked. Other writes run as they are.
   */
  private async grantGuard<T>(d: KindDescriptor, obj: Envelope, call: HookCall, write: () => Promise<T>): Promise<T> {
    if (!namesGrantees(d) && !(call.signUp && d.subject === 'principal')) return write();
    return this.opts.store.exclusive(GRANTEES_LOCK, async () => {
      await this.opts.store.sync();
      await grantProblems(this.grantChecks, d, obj, call);
      return write();
    });
  }

  /**
   * Whether the update may be skipped: the caller asked to skip unchanged writes and writing `obj`
   * over `current` would change nothing. Sensitive values that did not change take their stored
   * form first either way (no new ciphertext or hash, no session ended). A kind with a ttl is
   * always written: its updatedAt is its lease, and the same body sent again renews it.
   */
  private async changesNothing(d: KindDescriptor, obj: Envelope, current: Envelope, skipUnchanged: boolean): Promise<boolean> {
    await keepStoredSecrets(d, obj, current, this.opts.secrets, this.hookContext);
    return skipUnchanged && !d.ttlPath && sameContent(obj, current);
  }

  /** Tells `credentialsChanging` when this update changes a principal's credentials (a new, reset or removed password). */
  private async credentialsChanging(p: Principal, d: KindDescriptor, before: Envelope, after: Envelope): Promise<void> {
    if (!d.isPrincipal || !d.credentials?.length || !this.opts.credentialsChanging) return;
    const from = credentialStamp(d, before);
    const to = credentialStamp(d, after);
    if (from !== to) await this.opts.credentialsChanging({ principal: p, before, after, from, to });
  }

  /** A permission check with the same target rules as the CRUD calls (for routes built on them). */
  authorize(
    p: Principal,
    action: 'create' | 'read' | 'update' | 'delete',
    d: KindDescriptor,
    project: string | undefined,
    name: string,
  ): Promise<void> {
    return this.opts.authorizer.authorize(p, action, authzTarget(d, d.scope === 'project' ? project : undefined, name));
  }

  /**
   * Whether `p` may do everything to every kind in every project (a global `*` on `*`): what a
   * backup of the whole store needs, since it holds password hashes and sessions. With `actions`,
   * only those (`['read']`: may read everything, which a read-only server still allows).
   */
  async authorizeEverything(
    p: Principal,
    actions: readonly ('read' | 'create' | 'update' | 'delete')[] = ['read', 'create', 'update', 'delete'],
  ): Promise<void> {
    for (const d of this.opts.registry.all()) {
      for (const action of actions) await this.opts.authorizer.authorize(p, action, { kind: d.kind });
    }
  }

  /** An expired object still in the store (the reaper has not run yet) no longer holds its name. */
  private async dropExpired(d: KindDescriptor, key: ObjectKey): Promise<void> {
    if (!d.ttlPath) return;
    const old = await this.opts.store.get(key);
    if (!old || !isExpired(d, old, this.now().getTime())) return;
    await this.opts.store.delete(key, { expectedVersion: old.metadata.version }).catch((e: unknown) => {
      if (!(e instanceof ApiError && (e.reason === 'NotFound' || e.reason === 'Conflict'))) throw e;
    });
  }

  /**
   * Full validation without storing (POST /api/validate/...): no project existence check. The
   * scope-wide rules (one default datasource per plugin kind) are checked against the named
   * project, or the global scope, when the caller may read that kind there (the route is
   * anonymous: it must not tell who may not read them what is stored). Answers the warnings of
   * the valid object (`warnings`; none for a project-scoped object that names no project).
   */
  async validateOnly(p: Principal, d: KindDescriptor, body: unknown): Promise<ErrorDetail[]> {
    const obj = this.prepare(d, body, {}, { version: 0 }, false);
    const named = obj.metadata.project !== '';
    if (!named) obj.metadata.project = VALIDATE_PROJECT;
    const checkScope =
      d.singleFlag !== undefined && (d.scope === 'global' || named) && (await this.mayRead(p, d, obj.metadata.project, obj.metadata.name));
    await this.validate(d, obj, { principal: p }, checkScope);
    return named ? this.warnings(p, d, obj) : [];
  }

  /**
   * What is worth telling about a valid object without refusing it, with paths: the datasources it
   * asks for that no scope `p` may read has (src/resources/datasource-warnings.ts).
   */
  warnings(p: Principal, d: KindDescriptor, obj: Envelope): Promise<ErrorDetail[]> {
    return datasourceWarnings({ store: this.datasourceLists, authorizer: this.opts.authorizer, plugins: this.opts.plugins }, p, d, obj);
  }

  private async mayRead(p: Principal, d: KindDescriptor, project: string | undefined, name: string): Promise<boolean> {
    try {
      await this.opts.authorizer.authorize(p, 'read', authzTarget(d, d.scope === 'project' ? project : undefined, name));
      return true;
    } catch (e) {
      if (e instanceof ApiError && (e.reason === 'Forbidden' || e.reason === 'Unauthorized')) return false;
      throw e;
    }
  }

  /** Schema, then semantic hooks, then scope-wide rules; every problem at once. */
  private async validate(d: KindDescriptor, obj: Envelope, call: HookCall, checkScope = true): Promise<void> {
    const problems = [...schemaErrors(d.validate, obj, '', d.kind), ...forbiddenProblems(d, obj, this.hookContext.config)];
    const semantic = await this.semanticProblems(d, obj, call, problems.length === 0);
    if (checkScope && problems.length === 0) semantic.push(...(await this.singleFlagProblems(d, obj)));
    // Every problem at once: schema problems first, then semantic ones at other paths (a loop:
    // push(...list) of a hundred thousand would overflow the stack).
    const seen = new Set(problems.map((x) => x.path));
    for (const x of semantic) if (!seen.has(x.path)) problems.push(x);
    if (problems.length) throw invalid(problems, d.kind);
  }

  /** Hooks also run on schema-invalid objects so users see every problem; a hook that trips over a malformed shape is skipped then. */
  private async semanticProblems(d: KindDescriptor, obj: Envelope, call: HookCall, schemaValid: boolean): Promise<ErrorDetail[]> {
    if (!d.hooks?.validate) return [];
    try {
      return [...(await d.hooks.validate(obj, this.hookContext, call))];
    } catch (e) {
      if (schemaValid) throw e;
      return [];
    }
  }

  /**
   * Naming a Secret in a datasource lends its credentials to whoever may call the proxy: the
   * author must be allowed to read that Secret kind in that scope (PROXY-01/03).
   */
  private async authorizeSecretRefs(p: Principal, d: KindDescriptor, obj: Envelope): Promise<void> {
    if (!d.secretKind || !d.secretRefs) return;
    const secretKind = this.opts.registry.byName(d.secretKind)!;
    for (const name of new Set(d.secretRefs(obj))) {
      await this.opts.authorizer.authorize(p, 'read', authzTarget(secretKind, obj.metadata.project, name));
    }
  }

  /**
   * Listing an object in a container (a dashboard in a folder) puts it under the container's
   * permissions: the author must be allowed to update each existing object they add, so a team
   * owning a folder cannot take over another team's dashboard by listing it.
   */
  private async authorizeContents(p: Principal, d: KindDescriptor, obj: Envelope, current: Envelope | undefined): Promise<void> {
    if (!d.contents || p.internal) return;
    const member = this.opts.registry.byName(d.contents.kind)!;
    const before = new Set(current ? d.contents.names(current) : []);
    for (const name of d.contents.names(obj)) {
      if (before.has(name) || !(await this.opts.store.get({ kind: member.kind, project: obj.metadata.project ?? '', name }))) continue;
      await this.opts.authorizer.authorize(p, 'update', authzTarget(member, obj.metadata.project, name));
    }
  }

  /** Runs `fn` alone among the writes of the kind's scope (on every replica) when the kind has a scope-wide rule. */
  private inScope<T>(d: KindDescriptor, project: string | undefined, fn: () => Promise<T>): Promise<T> {
    if (!d.singleFlag) return fn();
    return this.opts.store.exclusive(`scope/${d.kind}/${d.scope === 'project' ? (project ?? '') : ''}`, fn);
  }

  /** Objects the kind creates along with a new one, stamped and validated like any other. */
  private async companionsOf(d: KindDescriptor, obj: Envelope, call: HookCall): Promise<Envelope[]> {
    const out = d.hooks?.companions?.(obj, call) ?? [];
    for (const c of out) {
      const cd = this.opts.registry.byName(c.kind);
      if (!cd) throw new Error(`companion of unknown kind ${c.kind}`);
      stampMetadata(c, { createdAt: obj.metadata.createdAt, updatedAt: obj.metadata.updatedAt, version: 0 });
      await this.validate(cd, c, call, false);
    }
    return out;
  }

  /** E.g. "at most one default datasource per plugin kind in a scope". */
  private async singleFlagProblems(d: KindDescriptor, obj: Envelope): Promise<ErrorDetail[]> {
    const rule = d.singleFlag;
    if (!rule || getPath(obj, rule.flag) !== true) return [];
    const group = getPath(obj, rule.groupBy);
    const project = obj.metadata.project ?? '';
    const others = await this.opts.store.list({ kind: d.kind, project });
    const first = others.find(
      (o) => o.metadata.name !== obj.metadata.name && getPath(o, rule.flag) === true && getPath(o, rule.groupBy) === group,
    );
    if (!first) return [];
    const where = d.scope === 'project' ? `project "${project}"` : 'the global scope';
    return [
      {
        path: rule.flag,
        message: `${d.kind} "${first.metadata.name}" is already the ${rule.label} for ${String(group)} in ${where}; set ${rule.flag} to false here or on "${first.metadata.name}"`,
      },
    ];
  }

  /** The stored object, or 404 (expired objects count as gone). */
  private async current(d: KindDescriptor, key: ObjectKey, evenIfExpired = false): Promise<Envelope> {
    const obj = await this.opts.store.get(key);
    if (!obj || (!evenIfExpired && isExpired(d, obj, this.now().getTime()))) notFoundError(d, key);
    return obj;
  }

  /** Identity checks, older forms rewritten, server metadata stamped. */
  private prepare(
    d: KindDescriptor,
    body: unknown,
    target: Target,
    meta: { createdAt?: string; version: number },
    requireProject = true,
  ): Envelope {
    const obj = identify(d, body, target, requireProject);
    d.hooks?.normalize?.(obj as unknown as Record<string, unknown>, this.hookContext);
    const at = this.now().toISOString();
    stampMetadata(obj, { createdAt: meta.createdAt ?? at, updatedAt: at, version: meta.version });
    return obj;
  }

  /** Store options recording who wrote, through what, and (kinds that keep one) the history entry. */
  private recordOf(d: KindDescriptor, p: Principal, w: WriteOptions, continues = false): WriteRecordOptions {
    const writer = writerOf(p, w.manager);
    if (!d.history) return { writer };
    const max = this.opts.config.history.max_versions;
    return { writer, history: { max, ...(continues ? { continues } : {}) } };
  }

  /** The audit entry of a write of `obj` by `p` (committed with it); a project's own entries name it as their project. */
  private audited(p: Principal, w: WriteOptions, action: 'create' | 'update' | 'delete', obj: Envelope, before?: number): AuditDraft {
    const { kind, metadata } = obj;
    const project = this.opts.registry.byName(kind)?.isProjectScope ? metadata.name : metadata.project;
    return auditDraft(
      p,
      {
        action,
        manager: w.manager ?? MANAGER.api,
        kind,
        ...(project !== undefined ? { project } : {}),
        name: metadata.name,
        ...(before !== undefined ? { versionBefore: before } : {}),
        ...(action !== 'delete' ? { versionAfter: metadata.version } : {}),
      },
      this.now(),
    );
  }

  private projectKey(project: string): ObjectKey {
    return { kind: this.opts.registry.projectKind.kind, project: '', name: project };
  }
}

/** Whether `obj` names external identities it signs in with (see KindDescriptor.externalIdentities). */
function hasExternalIdentities(d: KindDescriptor, obj: Envelope): boolean {
  const ids = d.externalIdentities === undefined ? undefined : getPath(obj, d.externalIdentities);
  return Array.isArray(ids) && ids.length > 0;
}

function scopeOf(d: KindDescriptor, project: string | undefined): string | undefined {
  return d.scope === 'project' ? project : undefined;
}

/** The permission question for an object: a project object lives in its project, a Project is its own. */
function authzTarget(d: KindDescriptor, project: string | undefined, name: string): AuthzTarget {
  if (d.scope === 'project') return { kind: d.kind, ...(project !== undefined ? { project } : {}), name };
  if (d.isProjectScope) return { kind: d.kind, project: name, name };
  return { kind: d.kind, name };
}

function notFoundError(d: KindDescriptor, key: ObjectKey): never {
  const where = d.scope === 'project' ? ` in project "${key.project}"` : '';
  throw notFound(`${d.kind} "${key.name}"${where} not found`);
}

/** Kinds whose stored text is the response: nothing to mask, no expiry to check. */
function servesStoredText(d: KindDescriptor): boolean {
  return !d.sensitive?.length && !d.ttlPath;
}

function textOf(obj: Envelope): StoredText {
  return { text: jsonOf(obj), metadata: obj.metadata };
}

/**
 * A `metadata_only` item, its text written when read: a list of 100,000 renders its items a few
 * at a time as the answer goes out, instead of holding 100,000 strings at once.
 */
class MetadataOnlyText implements StoredText {
  constructor(
    private readonly kind: string,
    readonly metadata: Metadata,
  ) {}

  get text(): string {
    return jsonOf({ kind: this.kind, metadata: this.metadata, spec: {} });
  }
}

function stale(d: KindDescriptor, key: ObjectKey, stored: number, expected: number): ApiError {
  return preconditionFailed(`${d.kind} "${key.name}" is at version ${stored}, not ${expected} (If-Match); read it again and retry`);
}

function immutableProblems(d: KindDescriptor, next: Envelope, prev: Envelope): void {
  const problems = (d.immutable ?? [])
    .filter((path) => JSON.stringify(getPath(next, path)) !== JSON.stringify(getPath(prev, path)))
    .map((path) => ({
      path,
      message: `cannot be changed (it is ${JSON.stringify(getPath(prev, path))}); delete and re-create the ${d.kind} instead`,
    }));
  if (problems.length) throw invalid(problems);
}

/** The parts of the object the configuration forbids (the kind's forbiddenBy): present and not empty. */
function forbiddenProblems(d: KindDescriptor, obj: Envelope, config: unknown): ErrorDetail[] {
  return (d.forbiddenBy ?? [])
    .filter((f) => getPath(config, f.key) === true && !isEmptyValue(getPath(obj, f.field)))
    .map((f) => ({ path: f.field, message: f.message }));
}

function isEmptyValue(v: unknown): boolean {
  return v === undefined || v === null || (Array.isArray(v) ? v.length === 0 : typeof v === 'object' && Object.keys(v).length === 0);
}
