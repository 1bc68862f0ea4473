import type { KindDescriptor } from '../src/kinds/descriptor.js';
import type { ApiClient } from './api-client.js';
import { collectionPath, KINDS, objectPath } from './kinds.js';
import { isProjectMissing, listAll } from './listing.js';
import { mapPool } from './pool.js';

/** What deleting a project takes with it. */
export interface ProjectContents {
  /** Objects per project-scoped kind (kinds with none left out), in registry order. */
  counts: { d: KindDescriptor; count: number }[];
  /** Earlier versions kept in the history of those objects (deleted with them). */
  versions: number;
  /** Kinds this user may not list there: what they hold is unknown. */
  unreadable: KindDescriptor[];
}

/**
 * Lists every project-scoped kind inside `project`, and (unless `versions` is false) counts the
 * history of the objects of kinds that keep one (a request per object).
 */
export async function projectContents(api: ApiClient, project: string, o: { versions?: boolean } = {}): Promise<ProjectContents> {
  const unreadable: KindDescriptor[] = [];
  const listed = await mapPool(KINDS.projectScoped(), 4, async (d) => {
    try {
      return { d, items: await listAll(api, collectionPath(d, project), { metadata_only: true }) };
    } catch (e) {
      const status = (e as { status?: number }).status;
      // 404: the kind is switched off on this server (enabledBy); 403: not ours to see; a project that does not exist holds nothing.
      if (status === 403) unreadable.push(d);
      else if (status !== 404 && !isProjectMissing(e)) throw e;
      return { d, items: [] };
    }
  });
  const withHistory =
    o.versions === false
      ? []
      : listed.filter((l) => l.d.history).flatMap((l) => l.items.map((o) => objectPath(l.d, String(o.metadata?.name), project)));
  const perObject = await mapPool(withHistory, 16, async (path) => {
    const res = await api.request('GET', `${path}/versions`);
    return res.status === 200 && Array.isArray(res.body) ? res.body.length : 0;
  });
  return {
    counts: listed.filter((l) => l.items.length).map((l) => ({ d: l.d, count: l.items.length })),
    versions: perObject.reduce((a, b) => a + b, 0),
    unreadable,
  };
}

/** The objects counted, all kinds together. */
export function objectCount(c: ProjectContents): number {
  return c.counts.reduce((a, x) => a + x.count, 0);
}

/** `the 3 object(s) in it: dashboards 2, datasources 1`, for one line of a plan. */
export function insideText(c: ProjectContents): string {
  const total = objectCount(c);
  const unreadable = c.unreadable.length ? `, and the ${c.unreadable.map((d) => d.plural).join(', ')} you may not list there` : '';
  return total
    ? `the ${total} object(s) in it: ${c.counts.map((x) => `${x.d.plural} ${x.count}`).join(', ')}${unreadable}`
    : `no objects in it${unreadable}`;
}

/** `Project team-a holds ...` lines: one per kind, the history, or that it is empty. */
export function describeContents(project: string, c: ProjectContents): string {
  const total = objectCount(c);
  const width = Math.max(0, ...c.counts.map((x) => x.d.plural.length), 'earlier versions'.length);
  const lines = [
    total
      ? `Deleting project ${project} also deletes ${total} object(s) in it, and their history:`
      : `Project ${project} holds no objects${c.unreadable.length ? ' that you can list' : ''}.`,
    ...c.counts.map((x) => `  ${x.d.plural.padEnd(width)}  ${x.count}`),
    ...(total ? [`  ${'earlier versions'.padEnd(width)}  ${c.versions}`] : []),
    ...(c.unreadable.length ? [`  (you may not list ${c.unreadable.map((d) => d.plural).join(', ')} there: those go too)`] : []),
  ];
  return `${lines.join('\n')}\n`;
}
