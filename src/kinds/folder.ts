import type { ErrorDetail } from '../errors.js';
import type { KindDescriptor } from './descriptor.js';
import type { FolderItem, Folder as FolderObject } from './generated/types.js';
import { Folder } from './generated/validators.js';

/** The dashboards a folder lists, its sub-folders' included (each once). */
function dashboardsIn(obj: FolderObject): string[] {
  const out = new Set<string>();
  const walk = (items: FolderItem[] | undefined, depth: number) => {
    if (!Array.isArray(items) || depth > 64) return;
    for (const it of items) {
      if (it?.kind === 'Dashboard' && typeof it.name === 'string') out.add(it.name);
      else if (it?.kind === 'Folder') walk(it.items, depth + 1);
    }
  };
  walk(obj.spec?.items, 0);
  return [...out];
}

/** A dashboard may appear once in a folder tree, as in Perses: every later reference is a problem naming the first. */
function repeatedDashboards(obj: FolderObject): ErrorDetail[] {
  const first = new Map<string, string>();
  const problems: ErrorDetail[] = [];
  const walk = (items: FolderItem[] | undefined, at: string, depth: number) => {
    if (!Array.isArray(items) || depth > 64) return;
    items.forEach((it, i) => {
      const path = `${at}[${i}]`;
      if (it?.kind === 'Dashboard' && typeof it.name === 'string') {
        const seen = first.get(it.name);
        if (seen === undefined) first.set(it.name, path);
        else
          problems.push({
            path: `${path}.name`,
            message: `dashboard "${it.name}" is referenced multiple times in the folder (first at ${seen}); keep one`,
          });
      } else if (it?.kind === 'Folder') walk(it.items, `${path}.items`, depth + 1);
    });
  };
  walk(obj.spec?.items, 'spec.items', 0);
  return problems;
}

/** A folder: a nested list of dashboard and folder names inside a project. */
export const folder: KindDescriptor<FolderObject> = {
  kind: 'Folder',
  plural: 'folders',
  scope: 'project',
  validate: Folder,
  history: true,
  contents: { kind: 'Dashboard', names: dashboardsIn },
  hooks: { validate: repeatedDashboards },
  searchable: true,
};
