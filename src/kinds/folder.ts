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

/** A folder: a nested list of dashboard and folder names inside a project. */
export const folder: KindDescriptor<FolderObject> = {
  kind: 'Folder',
  plural: 'folders',
  scope: 'project',
  validate: Folder,
  history: true,
  contents: { kind: 'Dashboard', names: dashboardsIn },
  searchable: true,
};
