import { getPath } from '../src/resources/object-path.js';
import type { ApiClient } from './api-client.js';
import { toHttpError } from './api-client.js';
import { UNCHANGED_HEADER } from '../src/api/headers.js';
import { CliError } from './errors.js';
import { collectionPath, KINDS, objectPath } from './kinds.js';
import { conflictOf, unchangedOnServer } from './ownership.js';
import { mapPool } from './pool.js';
import { phases, type Target } from './targets.js';

export type Outcome = 'created' | 'configured' | 'unchanged' | 'failed';

export interface ApplyOptions {
  dryRun: boolean;
  /** Create missing projects named by project objects (and not in the input). */
  createProject: boolean;
  concurrency: number;
  /** Overwrite objects another field manager changed since dashctl last applied them. */
  forceConflicts?: boolean;
  /** Called once per object (and per project created on the way). */
  onResult(r: ApplyResult): void;
}

export interface ApplyResult {
  /** Undefined for a project created by --create-project. */
  target?: Target;
  label: string;
  outcome: Outcome;
  error?: unknown;
}

const PROJECT_MISSING = /metadata\.project "([^"]*)" doesn't exist$/;

/**
 * Applies targets in three phases (Projects, other global kinds, project kinds), each in
 * parallel: read the stored object; when there is one, compare (ignoring server-owned metadata;
 * secret values compared by the server) to report `unchanged` without writing, else refuse when
 * another field manager changed it since dashctl last applied it (unless `forceConflicts`), else
 * PUT with If-Match; when there is none, POST (and on a 409, from a concurrent creator, compare
 * and PUT). A dry run sends `dryRun=true`; a project-scoped object whose project only this dry
 * run would create is checked with /api/validate instead.
 */
export async function applyTargets(api: ApiClient, targets: readonly Target[], o: ApplyOptions): Promise<ApplyResult[]> {
  const results: ApplyResult[] = [];
  const report = (r: ApplyResult) => {
    results.push(r);
    o.onResult(r);
  };
  /** Projects that exist only in this dry run. */
  const planned = new Set<string>();
  const [projects, globals, projectScoped] = phases(targets);
  const run = async (phase: Target[]) => {
    // Objects claiming a scope-wide flag (a default datasource) go one at a time, after the rest:
    // the server checks "at most one per scope" against what is stored, so parallel claims race.
    const claims = phase.filter(claimsFlag);
    await mapPool(phase.filter((t) => !claimsFlag(t)), o.concurrency, async (t) => report(await applyOne(api, t, o, planned)));
    for (const t of claims) report(await applyOne(api, t, o, planned));
  };
  for (const phase of [projects, globals]) await run(phase);
  if (o.createProject) {
    const inInput = new Set(projects.map((t) => t.name));
    const needed = [...new Set(projectScoped.map((t) => t.project!))].filter((p) => !inInput.has(p)).sort();
    await mapPool(needed, o.concurrency, async (p) => {
      const r = await ensureProject(api, p, o.dryRun, planned);
      if (r) report(r);
    });
  }
  await run(projectScoped);
  return results;
}

function claimsFlag(t: Target): boolean {
  return t.d.singleFlag !== undefined && getPath(t.m.object, t.d.singleFlag.flag) === true;
}

async function applyOne(api: ApiClient, t: Target, o: Pick<ApplyOptions, 'dryRun' | 'forceConflicts'>, planned: Set<string>): Promise<ApplyResult> {
  const dryRun = o.dryRun;
  const base = { target: t, label: t.label };
  const query = dryRun ? { dryRun: true } : undefined;
  const path = objectPath(t.d, t.name, t.project);
  /** Unchanged, refused (a conflict), or PUT conditional on the version compared. */
  const update = async (current: Record<string, unknown>): Promise<ApplyResult> => {
    if (await unchangedOnServer(api, t, path, current)) return { ...base, outcome: 'unchanged' };
    const version = Number((current.metadata as { version?: unknown } | undefined)?.version);
    const conflict = o.forceConflicts ? undefined : await conflictOf(api, path, version);
    if (conflict) return { ...base, outcome: 'failed', error: new CliError(conflict) };
    const ifMatch = Number.isInteger(version) ? { 'if-match': `"${version}"` } : undefined;
    const res = await api.call('PUT', path, { body: t.m.object, query, headers: ifMatch });
    return { ...base, outcome: res.headers.get(UNCHANGED_HEADER) === 'true' ? 'unchanged' : 'configured' };
  };
  try {
    // Reading first costs one cheap GET for an unchanged object (the common case of a GitOps
    // re-apply) instead of a fully validated POST answered 409.
    const existing = await api.request('GET', path);
    if (existing.status === 200) return await update(existing.body);
    // 400: a name the URL cannot hold; the POST below reports it with its JSON path.
    if (existing.status !== 404 && existing.status !== 400) throw toHttpError('GET', path, existing);
    const created = await api.request('POST', collectionPath(t.d, t.project), { body: t.m.object, query });
    if (created.status === 200 || created.status === 201) {
      if (dryRun && t.d.isProjectScope) planned.add(t.name);
      return { ...base, outcome: 'created' };
    }
    if (created.status === 400 && dryRun && t.project !== undefined && planned.has(t.project) && PROJECT_MISSING.test(String(created.body?.message))) {
      await api.call('POST', `/api/validate/${t.d.plural}`, { body: t.m.object });
      return { ...base, outcome: 'created' };
    }
    // Created by someone else since the GET: update it.
    if (created.status === 409) return await update((await api.call('GET', path)).body);
    throw toHttpError('POST', collectionPath(t.d, t.project), created);
  } catch (error) {
    return { ...base, outcome: 'failed', error };
  }
}

/** --create-project: a bare project when it does not exist yet. */
async function ensureProject(api: ApiClient, name: string, dryRun: boolean, planned: Set<string>): Promise<ApplyResult | undefined> {
  const pk = KINDS.projectKind;
  const label = `${pk.kind} ${name}`;
  try {
    const got = await api.request('GET', objectPath(pk, name));
    if (got.status === 200) return undefined;
    if (got.status !== 404) throw toHttpError('GET', objectPath(pk, name), got);
    await api.call('POST', collectionPath(pk), { body: { kind: pk.kind, metadata: { name }, spec: {} }, query: dryRun ? { dryRun: true } : undefined });
    if (dryRun) planned.add(name);
    return { label, outcome: 'created' };
  } catch (error) {
    return { label, outcome: 'failed', error };
  }
}
