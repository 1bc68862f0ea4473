import type { ObjectRef } from './profile-api';

const enc = encodeURIComponent;

/** Kinds (by path segment) that the UI shows as a rendered dashboard. */
export const VIEWABLE = new Set(['dashboards', 'ephemeraldashboards']);

/** The page of an object: a dashboard's view, a project's page, or any other object's editor. */
export function objectPath(r: ObjectRef & { plural: string }): string {
  if (!r.project) return r.plural === 'projects' ? `/projects/${enc(r.name)}` : `/global/${r.plural}/${enc(r.name)}/edit`;
  const base = `/projects/${enc(r.project)}/${r.plural}/${enc(r.name)}`;
  return VIEWABLE.has(r.plural) ? base : `${base}/edit`;
}

/** Where in an object a search matched, in words: `panel title`, `query`, or the field's name. */
export function fieldLabel(path: string): string {
  if (/panels\.[^.]+\.spec\.display\.name$|panels\["[^"]*"\]\.spec\.display\.name$/.test(path)) return 'panel title';
  if (/\.query$/i.test(path) || /\.expr$/i.test(path)) return 'query';
  if (/display\.description$/.test(path)) return 'description';
  const last = /([A-Za-z_$][\w$-]*)(?:\[\d+\])*$/.exec(path)?.[1];
  return last ?? path;
}

/** The page of a stored object of the kind with path segment `plural`. */
export function pageOf(plural: string, r: { kind: string; metadata: { name: string; project?: string } }): string {
  return objectPath({ kind: r.kind, plural, name: r.metadata.name, ...(r.metadata.project ? { project: r.metadata.project } : {}) });
}
