import type { KindDescriptor } from '../src/kinds/descriptor.js';
import type { ApiClient } from './api-client.js';
import { collectionPath, KINDS, label, objectPath, PHASES, phaseOf } from './kinds.js';
import { isProjectMissing, listAll } from './listing.js';
import { mapPool } from './pool.js';
import { projectContents, type ProjectContents } from './project-contents.js';
import type { Target } from './targets.js';

/** A stored object that prune would delete. */
export interface Doomed {
  d: KindDescriptor;
  name: string;
  project?: string | undefined;
  label: string;
  /** For a project: what deleting it takes with it (every object in it, tagged or not). */
  inside?: ProjectContents | undefined;
}

/** What prune found: the objects to delete, and the kinds it was not permitted to list. */
export interface Prunable {
  doomed: Doomed[];
  /** `roles in team-a`, `users`: listing them was refused (403), so their tagged objects stay. */
  unlisted: string[];
}

/**
 * Objects of every kind (or of the kinds `only` names: --prune-kind), in the projects the input
 * touches (global kinds: everywhere), that carry `tag` and are absent from the input: a kind whose
 * last object left the input is pruned too. A project that objects of the input are in is never
 * pruned (deleting it would delete them), and a pruned project carries what is in it. A kind the
 * user may not list is left alone and named in `unlisted`, unless the input holds objects of it
 * (then the refusal is an error, as it always was).
 */
export async function findPrunable(
  api: ApiClient,
  targets: readonly Target[],
  tag: string,
  only?: readonly KindDescriptor[],
): Promise<Prunable> {
  const wanted = new Set(targets.map((t) => t.key));
  const applied = new Set(targets.map((t) => t.d.kind));
  const kinds = only ?? KINDS.all();
  const unlisted: string[] = [];
  const projects = new Set<string>();
  const holdingInput = new Set<string>();
  for (const t of targets) {
    if (t.project !== undefined) {
      projects.add(t.project);
      holdingInput.add(t.project);
    }
    if (t.d.isProjectScope) projects.add(t.name);
  }
  const scopes: { d: KindDescriptor; project?: string }[] = [];
  for (const d of kinds) {
    if (d.scope === 'project') for (const p of [...projects].sort()) scopes.push({ d, project: p });
    else scopes.push({ d });
  }
  const found = await mapPool(scopes, 8, async ({ d, project }) => {
    const items = await listAll(api, collectionPath(d, project), { metadata_only: true }).catch((e: unknown) => {
      const status = (e as { status?: number }).status;
      // A project this run could not create (or a kind switched off) has nothing to prune.
      if (status === 404 || isProjectMissing(e)) return [];
      if (status !== 403 || applied.has(d.kind)) throw e;
      unlisted.push(`${d.plural}${project !== undefined ? ` in ${project}` : ''}`);
      return [];
    });
    return items
      .filter((o) => Array.isArray(o.metadata?.tags) && o.metadata.tags.includes(tag))
      .map((o) => ({ d, name: String(o.metadata.name), project }))
      .filter((o) => !wanted.has([d.kind, o.project ?? '', o.name].join('\u0000')))
      .filter((o) => !(d.isProjectScope && holdingInput.has(o.name)));
  });
  const doomed = await mapPool(found.flat(), 4, async (o) => ({
    ...o,
    label: label(o.d, o.name, o.project),
    ...(o.d.isProjectScope ? { inside: await projectContents(api, o.name, { versions: false }) } : {}),
  }));
  return { doomed, unlisted };
}

/** The warning for kinds prune could not list (undefined when it listed them all). */
export function unlistedWarning(unlisted: readonly string[]): string | undefined {
  if (!unlisted.length) return undefined;
  return `--prune was not permitted to list ${unlisted.join(', ')}: tagged objects there are not pruned (name the kinds to prune with --prune-kind KIND to look at those only)`;
}

/**
 * The warning for objects of the input that do not carry the prune tag (undefined when all do):
 * they are applied, but prune never deletes them, even once they leave the input.
 */
export function untaggedWarning(targets: readonly Target[], tag: string): string | undefined {
  const missing = targets.filter((t) => {
    const tags = (t.m.object.metadata as { tags?: unknown } | undefined)?.tags;
    return !(Array.isArray(tags) && tags.includes(tag));
  });
  if (!missing.length) return undefined;
  const shown = `${missing
    .slice(0, 5)
    .map((t) => t.label)
    .join(', ')}${missing.length > 5 ? `, and ${missing.length - 5} more` : ''}`;
  return `${missing.length} object(s) of the input do not carry tag "${tag}" (${shown}): --prune never deletes them, even once they leave the input; add "${tag}" to their metadata.tags`;
}

/** Deletes in reverse apply order (project kinds, global kinds, Projects; grants before the principals they name); each result reported. */
export async function deleteAll(
  api: ApiClient,
  doomed: readonly Doomed[],
  o: { dryRun: boolean; concurrency: number; onResult(x: Doomed, error?: unknown): void },
): Promise<number> {
  let failed = 0;
  for (const phase of [...PHASES].reverse()) {
    await mapPool(
      doomed.filter((x) => phaseOf(x.d) === phase),
      o.concurrency,
      async (x) => {
        try {
          await api.call('DELETE', objectPath(x.d, x.name, x.project), { query: o.dryRun ? { dryRun: true } : undefined });
          o.onResult(x);
        } catch (e) {
          failed++;
          o.onResult(x, e);
        }
      },
    );
  }
  return failed;
}
