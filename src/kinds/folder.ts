import type { Envelope } from '../storage/store.js';
import type { KindDescriptor } from './descriptor.js';
import { Folder } from './generated/validators.js';

interface Item {
  kind?: unknown;
  name?: unknown;
  items?: unknown;
}

/** The dashboards a folder lists, its sub-folders' included (each once). */
function dashboardsIn(obj: Envelope): string[] {
  const out = new Set<string>();
  const walk = (items: unknown, depth: number) => {
    if (!Array.isArray(items) || depth > 64) return;
    for (const it of items as Item[]) {
      if (it?.kind === 'Dashboard' && typeof it.name === 'string') out.add(it.name);
      else if (it?.kind === 'Folder') walk(it.items, depth + 1);
    }
  };
  walk((obj.spec as { items?: unknown } | undefined)?.items, 0);
  return [...out];
}

/** A folder: a nested list of dashboard and folder names inside a project. */
export const folder: KindDescriptor = {
  kind: 'Folder',
  plural: 'folders',
  scope: 'project',
  validate: Folder,
  history: true,
  contents: { kind: 'Dashboard', names: dashboardsIn },
  searchable: true,
};
