// Where Explore opens: a project and a datasource the user can query, the last used else the first.
import { resolveDatasource, type KnownDatasource } from '../../../src/lib/datasource-refs.js';
import { list, type Resource } from '../api';

const LAST = 'dashplane.explore';

/** The last project Explore showed ('' for the global datasources) and, per project, the datasource last queried. */
interface LastUsed {
  project?: string;
  datasources?: Record<string, string>;
}

function readLast(): LastUsed {
  try {
    return JSON.parse(localStorage.getItem(LAST) ?? '{}') as LastUsed;
  } catch {
    return {};
  }
}

function writeLast(change: (last: LastUsed) => LastUsed): void {
  try {
    localStorage.setItem(LAST, JSON.stringify(change(readLast())));
  } catch {
    // storage disabled: Explore starts from the first project every time
  }
}

/** Explore is showing `project` ('' for the global datasources). */
export function rememberProject(project: string): void {
  if (readLast().project !== project) writeLast((l) => ({ ...l, project }));
}

/** The datasource the user queried in `project` ('' for the global datasources). */
export function rememberDatasource(project: string, name: string): void {
  if (readLast().datasources?.[project] !== name) writeLast((l) => ({ ...l, datasources: { ...l.datasources, [project]: name } }));
}

/** What the user can query: the datasources of the projects they may read, and the global ones if they may read them. */
export interface Queryable {
  projects: Resource[];
  inProjects: Resource[];
  global: Resource[];
  /** The user may read the global datasources. */
  readGlobal: boolean;
}

export async function loadQueryable(readGlobal: boolean): Promise<Queryable> {
  const [projects, inProjects, global] = await Promise.all([
    list('projects'),
    list('datasources'),
    readGlobal ? list('globaldatasources').catch(() => [] as Resource[]) : [],
  ]);
  return { projects, inProjects, global, readGlobal };
}

const known = (all: Resource[]): KnownDatasource[] =>
  all.map((d) => {
    const spec = d.spec as { default?: boolean; plugin?: { kind?: string } };
    return { name: d.metadata.name, kind: spec.plugin?.kind ?? '', isDefault: spec.default === true };
  });

/**
 * The project Explore opens on without one in its URL: the last used if it still has something
 * to query (the global datasources if they were chosen last, for a user who may read them), else
 * the first project holding a datasource of one of `kinds`, else the global datasources if there
 * are some; undefined when there is nothing to query.
 */
export function startProject(q: Queryable, kinds: readonly string[]): string | undefined {
  const usable = (p: string) =>
    (p === '' ? q.global : q.inProjects.filter((d) => d.metadata.project === p)).some((d) =>
      kinds.includes(String((d.spec as { plugin?: { kind?: string } }).plugin?.kind)),
    );
  const last = readLast().project;
  if (last === '' && q.readGlobal) return '';
  if (last && q.projects.some((p) => p.metadata.name === last) && usable(last)) return last;
  const first = q.projects.find((p) => usable(p.metadata.name));
  if (first) return first.metadata.name;
  return usable('') ? '' : undefined;
}

/**
 * The datasource of `kind` a new query should name in `project` ('' for global only): the one
 * last used there, else none (`{kind}`: the default) when a default answers, else the first of the
 * project's, then of the global ones. Undefined when there is none at all.
 */
export function startDatasource(q: Queryable, project: string, kind: string): { kind: string; name?: string } | undefined {
  const scopes = { project: known(q.inProjects.filter((d) => project !== '' && d.metadata.project === project)), global: known(q.global) };
  const last = readLast().datasources?.[project];
  if (last && resolveDatasource({ kind, name: last }, scopes)) return { kind, name: last };
  if (resolveDatasource({ kind }, scopes)) return { kind };
  const first = [...scopes.project, ...scopes.global].find((d) => d.kind === kind);
  return first ? { kind, name: first.name } : undefined;
}
