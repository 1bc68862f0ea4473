import type { Authorizer, Principal } from '../auth/authorizer.js';
import { ApiError, alreadyExists, badRequest, invalid, notFound, preconditionFailed, type ErrorDetail } from '../errors.js';
import type { HookContext, KindDescriptor } from '../kinds/descriptor.js';
import type { KindRegistry } from '../kinds/registry.js';
import { schemaErrors } from '../kinds/schema-errors.js';
import type { PluginRegistry } from '../plugins/registry.js';
import { keyOf, type Envelope, type ObjectKey, type Store } from '../storage/store.js';
import { KeyedMutex } from '../storage/mutex.js';
import { isExpired, listPage, type ListOptions, type ListResult } from './listing.js';
import { mask, restoreMasked } from './masking.js';
import { getPath } from './object-path.js';
import { identify, stampMetadata, type Target } from './prepare.js';

export interface ServiceOptions {
  registry: KindRegistry;
  store: Store;
  plugins: PluginRegistry;
  authorizer: Authorizer;
  /** The clock (tests may pin it). */
  now?: () => Date;
}

export interface WriteOptions {
  dryRun?: boolean;
  /** The version the caller last saw (If-Match); a different stored version is a 412. */
  ifMatch?: number;
}

/** Stands in for an absent project when only validating. */
const VALIDATE_PROJECT = 'validation';

/** How often an update without If-Match re-reads after losing a race before giving up. */
const MAX_UPDATE_RETRIES = 50;

/**
 * The one pipeline every write takes (HTTP, dashctl, provisioning, reaper), readable top to bottom:
 * authorize, identify, normalise older forms, stamp metadata, schema-validate, semantic-validate,
 * write. Responses are masked here, so no caller can leak a sensitive field.
 */
export class ResourceService {
  private readonly hookContext: HookContext;
  private readonly now: () => Date;
  private readonly updates = new KeyedMutex();

  constructor(private readonly opts: ServiceOptions) {
    this.now = opts.now ?? (() => new Date());
    this.hookContext = { store: opts.store, plugins: opts.plugins, kinds: opts.registry.scopes };
  }

  async get(p: Principal, d: KindDescriptor, project: string, name: string): Promise<Envelope> {
    await this.opts.authorizer.authorize(p, 'read', d.kind, scopeOf(d, project));
    return mask(d, await this.current(d, { kind: d.kind, project: scopeOf(d, project) ?? '', name }));
  }

  async list(p: Principal, d: KindDescriptor, q: ListOptions): Promise<ListResult> {
    if (q.project !== undefined) await this.opts.authorizer.authorize(p, 'read', d.kind, q.project);
    const readable = q.project === undefined && d.scope === 'project' ? await this.opts.authorizer.readableProjects(p, d.kind) : '*';
    const page = await listPage(this.opts.store, d, q, readable, this.now().getTime());
    return { ...page, items: page.items.map((o) => mask(d, o)) };
  }

  async create(p: Principal, d: KindDescriptor, body: unknown, target: Target, w: WriteOptions = {}): Promise<Envelope> {
    const obj = this.prepare(d, body, target, { version: 0 });
    const project = scopeOf(d, obj.metadata.project);
    await this.opts.authorizer.authorize(p, 'create', d.kind, project);
    const parent = project === undefined ? undefined : this.projectKey(project);
    if (parent && !(await this.opts.store.get(parent))) throw projectMissing(project!);
    restoreMasked(d, obj, undefined);
    await this.validate(d, obj);
    if (w.dryRun) {
      if (await this.opts.store.get(keyOf(obj))) throw alreadyExists(`${d.kind} "${obj.metadata.name}" already exists`);
      return mask(d, obj);
    }
    try {
      await this.opts.store.create(obj, parent ? { parent } : {});
    } catch (e) {
      if (e instanceof ApiError && e.reason === 'NotFound' && project !== undefined) throw projectMissing(project);
      throw e;
    }
    return mask(d, obj);
  }

  async update(p: Principal, d: KindDescriptor, body: unknown, target: { name: string; project?: string }, w: WriteOptions = {}): Promise<Envelope> {
    const key: ObjectKey = { kind: d.kind, project: scopeOf(d, target.project) ?? '', name: target.name };
    await this.opts.authorizer.authorize(p, 'update', d.kind, scopeOf(d, target.project));
    // Updates of one object in this process queue up; the retry loop covers other replicas.
    return this.updates.run(`${key.kind}/${key.project}/${key.name}`, () => this.updateLoop(d, key, body, target, w));
  }

  private async updateLoop(d: KindDescriptor, key: ObjectKey, body: unknown, target: Target, w: WriteOptions): Promise<Envelope> {
    for (let attempt = 0; ; attempt++) {
      const current = await this.current(d, key);
      const version = current.metadata.version;
      if (w.ifMatch !== undefined && version !== w.ifMatch) throw stale(d, key, version, w.ifMatch);
      const obj = this.prepare(d, body, target, { createdAt: current.metadata.createdAt, version: version + 1 });
      immutableProblems(d, obj, current);
      restoreMasked(d, obj, current);
      await this.validate(d, obj);
      if (w.dryRun) return mask(d, obj);
      try {
        await this.opts.store.update(obj, { expectedVersion: version });
        return mask(d, obj);
      } catch (e) {
        if (!(e instanceof ApiError && e.reason === 'Conflict')) throw e;
        if (w.ifMatch !== undefined) throw preconditionFailed(`${d.kind} "${key.name}" was changed by someone else; read it again and retry with its new version`);
        if (attempt >= MAX_UPDATE_RETRIES) throw new ApiError('Conflict', `${d.kind} "${key.name}" is being updated concurrently; retry`);
      }
    }
  }

  async delete(p: Principal, d: KindDescriptor, project: string | undefined, name: string, w: WriteOptions = {}): Promise<void> {
    const key: ObjectKey = { kind: d.kind, project: scopeOf(d, project) ?? '', name };
    await this.opts.authorizer.authorize(p, 'delete', d.kind, scopeOf(d, project));
    const current = await this.current(d, key);
    if (w.ifMatch !== undefined && current.metadata.version !== w.ifMatch) throw stale(d, key, current.metadata.version, w.ifMatch);
    if (w.dryRun) return;
    const children = d.isProjectScope ? { project: name, kinds: this.opts.registry.projectScoped().map((k) => k.kind) } : undefined;
    try {
      await this.opts.store.delete(key, { ...(w.ifMatch !== undefined ? { expectedVersion: w.ifMatch } : {}), ...(children ? { children } : {}) });
    } catch (e) {
      if (e instanceof ApiError && e.reason === 'Conflict') throw preconditionFailed(`${d.kind} "${name}" was changed by someone else; read it again and retry with its new version`);
      throw e;
    }
  }

  /** Full validation without storing (POST /api/validate/...): no project existence check. */
  async validateOnly(d: KindDescriptor, body: unknown): Promise<void> {
    const obj = this.prepare(d, body, {}, { version: 0 }, false);
    if (obj.metadata.project === '') obj.metadata.project = VALIDATE_PROJECT;
    await this.validate(d, obj, false);
  }

  /** Schema, then semantic hooks, then scope-wide rules; every problem at once. */
  private async validate(d: KindDescriptor, obj: Envelope, checkScope = true): Promise<void> {
    const problems = schemaErrors(d.validate, obj);
    const semantic = await this.semanticProblems(d, obj, problems.length === 0);
    if (checkScope && problems.length === 0) semantic.push(...(await this.singleFlagProblems(d, obj)));
    // Every problem at once: schema problems first, then semantic ones at other paths.
    const seen = new Set(problems.map((x) => x.path));
    problems.push(...semantic.filter((x) => !seen.has(x.path)));
    if (problems.length) throw invalid(problems, d.kind);
  }

  /** Hooks also run on schema-invalid objects so users see every problem; a hook that trips over a malformed shape is skipped then. */
  private async semanticProblems(d: KindDescriptor, obj: Envelope, schemaValid: boolean): Promise<ErrorDetail[]> {
    if (!d.hooks?.validate) return [];
    try {
      return [...(await d.hooks.validate(obj, this.hookContext))];
    } catch (e) {
      if (schemaValid) throw e;
      return [];
    }
  }

  /** E.g. "at most one default datasource per plugin kind in a scope". */
  private async singleFlagProblems(d: KindDescriptor, obj: Envelope): Promise<ErrorDetail[]> {
    const rule = d.singleFlag;
    if (!rule || getPath(obj, rule.flag) !== true) return [];
    const group = getPath(obj, rule.groupBy);
    const project = obj.metadata.project ?? '';
    const others = await this.opts.store.list({ kind: d.kind, project });
    const first = others.find((o) => o.metadata.name !== obj.metadata.name && getPath(o, rule.flag) === true && getPath(o, rule.groupBy) === group);
    if (!first) return [];
    const where = d.scope === 'project' ? `project "${project}"` : 'the global scope';
    return [{ path: rule.flag, message: `${d.kind} "${first.metadata.name}" is already the ${rule.label} for ${String(group)} in ${where}; set ${rule.flag} to false here or on "${first.metadata.name}"` }];
  }

  /** The stored object, or 404 (expired objects count as gone). */
  private async current(d: KindDescriptor, key: ObjectKey): Promise<Envelope> {
    const obj = await this.opts.store.get(key);
    if (!obj || isExpired(d, obj, this.now().getTime())) {
      const where = d.scope === 'project' ? ` in project "${key.project}"` : '';
      throw notFound(`${d.kind} "${key.name}"${where} not found`);
    }
    return obj;
  }

  /** Identity checks, older forms rewritten, server metadata stamped. */
  private prepare(d: KindDescriptor, body: unknown, target: Target, meta: { createdAt?: string; version: number }, requireProject = true): Envelope {
    const obj = identify(d, body, target, requireProject);
    d.hooks?.normalize?.(obj as unknown as Record<string, unknown>);
    const at = this.now().toISOString();
    stampMetadata(obj, { createdAt: meta.createdAt ?? at, updatedAt: at, version: meta.version });
    return obj;
  }

  private projectKey(project: string): ObjectKey {
    return { kind: this.opts.registry.projectKind.kind, project: '', name: project };
  }
}

function scopeOf(d: KindDescriptor, project: string | undefined): string | undefined {
  return d.scope === 'project' ? project : undefined;
}

function projectMissing(project: string): ApiError {
  return badRequest(`metadata.project "${project}" doesn't exist`, [{ path: 'metadata.project', message: `create project "${project}" first` }]);
}

function stale(d: KindDescriptor, key: ObjectKey, stored: number, expected: number): ApiError {
  return preconditionFailed(`${d.kind} "${key.name}" is at version ${stored}, not ${expected} (If-Match); read it again and retry`);
}

function immutableProblems(d: KindDescriptor, next: Envelope, prev: Envelope): void {
  const problems = (d.immutable ?? [])
    .filter((path) => JSON.stringify(getPath(next, path)) !== JSON.stringify(getPath(prev, path)))
    .map((path) => ({ path, message: `cannot be changed (it is ${JSON.stringify(getPath(prev, path))}); delete and re-create the ${d.kind} instead` }));
  if (problems.length) throw invalid(problems);
}

