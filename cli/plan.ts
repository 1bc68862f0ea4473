import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { UNCHANGED_HEADER, VERSION_HEADER } from '../src/api/headers.js';
import type { ApiClient } from './api-client.js';
import { toHttpError } from './api-client.js';
import { CliError } from './errors.js';
import { dryRunWrite, duplicateClaims, flagGivers } from './flag-claims.js';
import { collectionPath, KINDS, objectPath } from './kinds.js';
import { datasourceWarnings, type DatasourceWarning } from './datasource-check.js';
import { conflictOf, unchangedOnServer } from './ownership.js';
import { mapPool } from './pool.js';
import { findPrunable, unlistedWarning, type Doomed } from './prune.js';
import { PROJECT_MISSING } from './listing.js';
import { phases, type Target } from './targets.js';
import { granteesOf } from '../src/resources/grantees.js';
import type { Envelope } from '../src/storage/store.js';

export type Action = 'create' | 'configure' | 'unchanged';

/** One object of the plan: what apply will do with it. */
export interface Step {
  /** Undefined for a project that --create-project adds. */
  target?: Target;
  label: string;
  action: Action;
  /** The stored version a `configure` was planned against (sent as If-Match). */
  version?: number;
  /** The body to send (a bare project for --create-project). */
  body: Record<string, unknown>;
  /** The stored object as read while planning a `configure` (diff shows the change against it). */
  live?: Record<string, unknown>;
}

/** An object that cannot be applied, found while planning. */
export interface Refusal {
  target?: Target;
  label: string;
  error: unknown;
}

/** Everything apply would do, worked out before the first write. */
export interface Plan {
  steps: Step[];
  refused: Refusal[];
  prunes: Doomed[];
  /** What could not be checked (a server without dry runs): one line for stderr. */
  warning?: string;
  /** Kinds prune was not permitted to list: one line for stderr. */
  pruneWarning?: string | undefined;
  /** Datasources the planned objects ask for that will not exist (not refused: printed). */
  datasourceWarnings?: DatasourceWarning[];
}

export interface PlanOptions {
  /** Create missing projects named by project-scoped objects (and not in the input). */
  createProject: boolean;
  /** Overwrite objects another field manager changed since dashctl last applied them. */
  forceConflicts: boolean;
  concurrency: number;
  /** With --prune: objects carrying this tag and absent from the input are planned for deletion. */
  pruneTag?: string;
  /** With --prune-kind: only objects of these kinds are pruned (default: every kind). */
  pruneKinds?: readonly KindDescriptor[] | undefined;
  /** Called as each object is planned (progress). */
  onStep?(): void;
}

/** What planning one object needs to know about the server and the rest of the plan. */
interface PlanContext {
  /** The server honours `dryRun=true` (dashplane); otherwise nothing is dry-run (see makePlan). */
  dryRun: boolean;
  /** Projects this apply creates: their objects cannot be dry-run yet. */
  created: Set<string>;
  /** Objects of the input that give a scope-wide flag up (see flag-claims.ts). */
  givers: ReadonlySet<string>;
  /** Without dry runs: the kinds the server offers no /api/validate route for (so not validated). */
  unvalidated: Set<string>;
  /** Without dry runs: the existence check of each project the input puts objects in, made once. */
  projectChecks: Map<string, Promise<void>>;
  /** Principals this apply creates (`kind/project/name`): a grant naming one cannot be dry-run yet. */
  newPrincipals: Set<string>;
}

/**
 * The plan of an apply, computed without writing anything: every object is read and compared
 * (secret values by the server) to be `unchanged`, refused when another field manager changed it
 * since dashctl last applied it, and otherwise checked by the server exactly as the write would be
 * (a `dryRun=true` POST or PUT: validation, permissions, references, at most one default
 * datasource per plugin kind in a scope). Two claims of such a flag within the input are refused
 * before anything is sent; a claim the server refuses only because an object the input gives the
 * flag up holds it today is checked with the flag off. An object in a project this apply creates,
 * and a binding or group naming a principal this apply creates, cannot be dry-run and is
 * validated with `/api/validate` instead.
 *
 * A server that does not honour `dryRun` (Perses ignores it and carries the write out) gets no
 * dry run at all: each object is validated with `/api/validate/{plural}` where the server offers
 * it, and the project of a new one is read; the checks only a dry run makes are skipped and named
 * by `plan.warning`.
 */
export async function makePlan(api: ApiClient, targets: readonly Target[], o: PlanOptions): Promise<Plan> {
  const plan: Plan = { steps: [], refused: [], prunes: [], datasourceWarnings: [] };
  let dryRun: boolean;
  try {
    dryRun = await api.honoursDryRun();
  } catch (error) {
    // the server cannot be reached: nothing can be planned
    plan.refused = targets.map((t) => ({ target: t, label: t.label, error }));
    return plan;
  }
  const duplicates = duplicateClaims(targets);
  plan.refused.push(...duplicates);
  const refusedEarly = new Set<Target>(duplicates.map((r) => r.target));
  const [projects, globalPrincipals, globals, projectPrincipals, projectScoped] = phases(targets.filter((t) => !refusedEarly.has(t)));
  const pc: PlanContext = {
    dryRun,
    created: new Set<string>(),
    givers: flagGivers(targets),
    unvalidated: new Set<string>(),
    projectChecks: new Map(),
    newPrincipals: new Set(),
  };
  const created = pc.created;
  const planOne = async (t: Target) => {
    const r = await planTarget(api, t, o, pc);
    o.onStep?.();
    if ('error' in r) plan.refused.push(r);
    else plan.steps.push(r);
  };
  await mapPool(projects, o.concurrency, planOne);
  for (const s of plan.steps) if (s.action === 'create' && s.target?.d.isProjectScope) created.add(s.target.name);
  if (o.createProject) {
    const inInput = new Set(projects.map((t) => t.name));
    const needed = [...new Set([...projectPrincipals, ...projectScoped].map((t) => t.project!))].filter((p) => !inInput.has(p)).sort();
    await mapPool(needed, o.concurrency, async (name) => {
      const pk = KINDS.projectKind;
      const got = await api.request('GET', objectPath(pk, name));
      if (got.status === 200) return;
      const label = `${pk.kind} ${name}`;
      if (got.status !== 404) return void plan.refused.push({ label, error: toHttpError('GET', objectPath(pk, name), got) });
      const body = { kind: pk.kind, metadata: { name }, spec: {} };
      if (pc.dryRun) {
        const check = await api.request('POST', collectionPath(pk), { body, query: { dryRun: true } });
        if (check.status !== 200) return void plan.refused.push({ label, error: toHttpError('POST', collectionPath(pk), check) });
      } else {
        try {
          await validateOnly(api, pk, body, pc);
        } catch (error) {
          return void plan.refused.push({ label, error });
        }
      }
      created.add(name);
      plan.steps.push({ label, action: 'create', body });
    });
  }
  await mapPool([...globalPrincipals, ...projectPrincipals], o.concurrency, planOne);
  for (const s of plan.steps)
    if (s.action === 'create' && s.target?.d.subject === 'principal')
      pc.newPrincipals.add(principalKey(s.target.d, s.target.name, s.target.project));
  await mapPool([...globals, ...projectScoped], o.concurrency, planOne);
  if (o.pruneTag !== undefined) {
    const found = await findPrunable(api, targets, o.pruneTag, o.pruneKinds);
    plan.prunes = found.doomed;
    plan.pruneWarning = unlistedWarning(found.unlisted);
  }
  const planned = new Set(plan.steps.map((s) => s.target));
  // a check of what the objects ask for: when it cannot be made, the plan goes on without it
  const missing = await datasourceWarnings(targets, { api, deleted: plan.prunes }).catch(() => []);
  plan.datasourceWarnings = missing.filter((w) => planned.has(w.target));
  if (!pc.dryRun) plan.warning = withoutDryRun(api.url, pc.unvalidated);
  const order = new Map(targets.map((t, i) => [t, i]));
  plan.steps.sort((a, b) => (a.target ? order.get(a.target)! : -1) - (b.target ? order.get(b.target)! : -1));
  return plan;
}

async function planTarget(api: ApiClient, t: Target, o: PlanOptions, pc: PlanContext): Promise<Step | Refusal> {
  const base = { target: t, label: t.label, body: t.m.object };
  const path = objectPath(t.d, t.name, t.project);
  try {
    const live = await api.request('GET', path);
    if (live.status === 200) {
      if (await unchangedOnServer(api, t, path, live.body)) return { ...base, action: 'unchanged' };
      const version = Number(live.body?.metadata?.version);
      const conflict = o.forceConflicts ? undefined : await conflictOf(api, path, version);
      if (conflict) return { target: t, label: t.label, error: new CliError(conflict) };
      const planned = { ...base, action: 'configure' as const, live: live.body, ...(Number.isInteger(version) ? { version } : {}) };
      if (!pc.dryRun || grantsToNew(t, pc)) {
        await validateOnly(api, t.d, t.m.object, pc);
        return planned;
      }
      const check = await dryRunWrite(
        api,
        t,
        'PUT',
        path,
        Number.isInteger(version) ? { headers: { 'if-match': `"${version}"` } } : {},
        pc.givers,
      );
      if (check.status !== 200) throw toHttpError('PUT', path, check);
      if (check.headers.get(UNCHANGED_HEADER) === 'true') return { ...base, action: 'unchanged' };
      return planned;
    }
    // 400: a name the URL cannot hold; the dry-run POST below reports it with its JSON path.
    if (live.status !== 404 && (live.status !== 400 || !pc.dryRun)) throw toHttpError('GET', path, live);
    if ((t.project !== undefined && pc.created.has(t.project)) || grantsToNew(t, pc)) {
      await validateOnly(api, t.d, t.m.object, pc);
      return { ...base, action: 'create' };
    }
    if (!pc.dryRun) {
      if (t.project !== undefined) await projectExists(api, t.project, pc);
      await validateOnly(api, t.d, t.m.object, pc);
      return { ...base, action: 'create' };
    }
    const check = await dryRunWrite(api, t, 'POST', collectionPath(t.d, t.project), {}, pc.givers);
    if (check.status === 200 || check.status === 201) return { ...base, action: 'create' };
    if (check.status === 400 && PROJECT_MISSING.test(String(check.body?.message))) {
      throw new CliError(`project "${t.project}" does not exist; create it first, or apply with --create-project`);
    }
    throw toHttpError('POST', collectionPath(t.d, t.project), check);
  } catch (error) {
    return { target: t, label: t.label, error };
  }
}

/**
 * Whether `t` (a binding or a group) names a principal this apply creates: the server refuses a
 * grant naming a principal that does not exist yet, so such a grant is validated alone instead
 * of dry-run, and written after the principal (apply's phases).
 */
function grantsToNew(t: Target, pc: PlanContext): boolean {
  if (pc.newPrincipals.size === 0) return false;
  return granteesOf(KINDS, t.d, t.m.object as unknown as Envelope).some((g) => {
    const d = KINDS.byName(g.kind);
    return d !== undefined && pc.newPrincipals.has(principalKey(d, g.name, d.scope === 'project' ? t.project : undefined));
  });
}

function principalKey(d: KindDescriptor, name: string, project: string | undefined): string {
  return `${d.kind}/${d.scope === 'project' ? (project ?? '') : ''}/${name}`;
}

/**
 * Full server-side validation of the object alone (no project or scope-wide checks: a new project
 * has no other object). A server without dry runs may have no such route for the kind (Perses
 * validates dashboards, datasources and variables only): the kind is then noted as not validated.
 */
async function validateOnly(api: ApiClient, d: KindDescriptor, body: unknown, pc: PlanContext): Promise<void> {
  const path = `/api/validate/${d.plural}`;
  const res = await api.request('POST', path, { body });
  if (res.status === 200 || res.status === 204) return;
  if (!pc.dryRun && (res.status === 404 || res.status === 405)) return void pc.unvalidated.add(d.kind);
  throw toHttpError('POST', path, res);
}

/** Without dry runs: a project the input puts a new object in must exist (read once per project; only a 404 refuses). */
function projectExists(api: ApiClient, project: string, pc: PlanContext): Promise<void> {
  let check = pc.projectChecks.get(project);
  if (!check) {
    check = api.request('GET', objectPath(KINDS.projectKind, project)).then((res) => {
      if (res.status === 404) throw new CliError(`project "${project}" does not exist; create it first, or apply with --create-project`);
    });
    pc.projectChecks.set(project, check);
  }
  return check;
}

/** The warning of a plan made without dry runs: what was checked instead, and what was not. */
function withoutDryRun(url: string, unvalidated: ReadonlySet<string>): string {
  const kinds = [...unvalidated].sort();
  return (
    `${url} does not honour dryRun (no ${VERSION_HEADER} header: not a dashplane server), so nothing was dry-run: objects were checked with POST /api/validate/{plural}` +
    `${kinds.length ? ` (which this server lacks for ${kinds.join(', ')}: those were not validated)` : ''} and the projects of new objects were read; ` +
    'not checked: permissions, references and the one default datasource per plugin kind (apply reports a refusal when it writes), and secret values (an object holding some counts as changed)'
  );
}

/** `create 2, configure 1, unchanged 14, prune 1` */
export function planCounts(plan: Plan): string {
  const n = (a: Action) => plan.steps.filter((s) => s.action === a).length;
  return `create ${n('create')}, configure ${n('configure')}, unchanged ${n('unchanged')}, prune ${plan.prunes.length}${plan.refused.length ? `, refused ${plan.refused.length}` : ''}`;
}
