import { badRequest } from '../errors.js';
import { nameProblem } from '../lib/names.js';
import { trimRuns } from '../lib/trim-runs.js';

const MAX = 75;

/** Whether `name` is a valid resource name (the server's rule: src/lib/names.ts). */
function isValidName(name: string): boolean {
  return nameProblem(name) === undefined;
}

/** A title as a name: lower case, runs of other characters as "-" ("Kubernetes / Pods" -> "kubernetes-pods"). */
function slugify(text: string): string {
  const slug = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_.-]+/g, '-')
    .replace(/\.{2,}/g, '.');
  return trimRuns(trimRuns(slug, '-.').slice(0, MAX), '-.', { start: false });
}

/**
 * The name of the migrated dashboard: `wanted` when given (it must be valid), else the Grafana uid
 * when it is a valid name, else the title as a slug; made unique among `taken` by a "-2", "-3"...
 * suffix. The notes say when the name differs from the uid.
 */
export function dashboardName(
  uid: unknown,
  title: unknown,
  taken: ReadonlySet<string> = new Set(),
  wanted?: string,
): { name: string; notes: string[] } {
  const notes: string[] = [];
  if (wanted !== undefined && !isValidName(wanted)) {
    throw badRequest(
      `name: "${wanted}" is not a valid dashboard name: use 1 to 75 letters, digits, "_", "." or "-" (not starting or ending with ".")`,
    );
  }
  let base = wanted;
  if (base === undefined && typeof uid === 'string' && isValidName(uid)) base = uid;
  if (base === undefined) {
    const fromTitle = typeof title === 'string' ? slugify(title) : '';
    base = fromTitle || (typeof uid === 'string' && slugify(uid)) || 'grafana-dashboard';
    if (typeof uid === 'string' && uid !== '') notes.push(`the uid "${uid}" is not a valid name: the dashboard is named "${base}"`);
    else if (fromTitle) notes.push(`the dashboard has no uid: it is named "${base}" after its title`);
    else notes.push(`the dashboard has neither a uid nor a title to name it after: it is named "${base}"`);
  }
  let name = base;
  for (let i = 2; taken.has(name); i++) {
    const suffix = `-${i}`;
    name = base.slice(0, MAX - suffix.length) + suffix;
  }
  if (name !== base) notes.push(`a dashboard named "${base}" already exists in the project: this one is named "${name}"`);
  return { name, notes };
}
