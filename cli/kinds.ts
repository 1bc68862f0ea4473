import type { KindDescriptor } from '../src/kinds/descriptor.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import type { KindRegistry } from '../src/kinds/registry.js';
import { CliError } from './errors.js';

/** The server's own list of kinds (plurals, scopes, validators): dashctl never keeps a second one. */
export const KINDS: KindRegistry = buildKindRegistry();

/** A kind from any spelling: `dash`, `dashboard`, `Dashboards`, `globalRoles`, `gds`... (short names are the descriptors' `shortNames`). */
export function resolveKind(text: string): KindDescriptor {
  const t = text.toLowerCase();
  const d =
    KINDS.byShortName(t) ?? KINDS.byName(t) ?? KINDS.byPluralName(t) ?? (t.endsWith('s') ? KINDS.byName(t.slice(0, -1)) : undefined);
  if (d) return d;
  const near = nearestKind(t);
  const known = KINDS.all()
    .map((k) => k.plural)
    .join(', ');
  throw new CliError(
    `unknown kind "${text}"${near ? `; did you mean ${near.plural}?` : ''}\nknown kinds: ${known}\nshort names: ${KINDS.shortNames()
      .map(([s]) => s)
      .join(', ')}`,
  );
}

/** Every spelling `resolveKind` accepts, as completion offers them: plurals first, then short names. */
export function kindWords(): string[] {
  return [...KINDS.all().map((k) => k.plural), ...KINDS.shortNames().map(([s]) => s)];
}

/** The kind whose name, plural or short name is closest to `text` (a typo), if one is close enough. */
export function nearestKind(text: string): KindDescriptor | undefined {
  const t = text.toLowerCase();
  let best: { d: KindDescriptor; distance: number } | undefined;
  const spellings: [string, KindDescriptor][] = [
    ...KINDS.all().flatMap(
      (d) =>
        [
          [d.kind.toLowerCase(), d],
          [d.plural, d],
        ] as [string, KindDescriptor][],
    ),
    ...KINDS.shortNames(),
  ];
  for (const [spelling, d] of spellings) {
    const distance = editDistance(t, spelling);
    if (!best || distance < best.distance) best = { d, distance };
  }
  // A typo, not another word: at most 2 edits, and fewer than a third of the word.
  return best && best.distance <= Math.min(2, Math.floor(t.length / 3)) ? best.d : undefined;
}

/** Levenshtein distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length];
}

/** kubectl's `-o name` form: `dashboard/team-a/cpu`, `globaldatasource/prom`, `project/team-a`. */
export function resourceName(d: KindDescriptor, name: string, project?: string): string {
  return [d.kind.toLowerCase(), ...(d.scope === 'project' && project ? [project] : []), name].join('/');
}

/** Collection path of a kind: `/api/v1/globaldatasources` or `/api/v1/projects/p/dashboards`. */
export function collectionPath(d: KindDescriptor, project?: string): string {
  if (d.scope === 'project' && project !== undefined) return `/api/v1/projects/${encodeURIComponent(project)}/${d.plural}`;
  return `/api/v1/${d.plural}`;
}

/** Path of one object. */
export function objectPath(d: KindDescriptor, name: string, project?: string): string {
  return `${collectionPath(d, project)}/${encodeURIComponent(name)}`;
}

/** `Dashboard demo/cpu`, `GlobalDatasource prom`. */
export function label(d: KindDescriptor, name: string, project?: string): string {
  return d.scope === 'project' && project ? `${d.kind} ${project}/${name}` : `${d.kind} ${name}`;
}

/** Apply order (shared with the server's provisioning). */
export { PHASES, phaseOf } from '../src/kinds/apply-order.js';
