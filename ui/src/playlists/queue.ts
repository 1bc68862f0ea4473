import { type ApiError, displayName, list, type Resource } from '../api';

/** One item of a Playlist's spec (docs/api.md §1): one dashboard, or every dashboard with a tag. */
export interface PlaylistItem {
  dashboard?: { name: string; project?: string };
  tag?: string;
  project?: string;
}

export interface PlaylistSpec {
  display?: { name?: string; description?: string };
  interval: string;
  items: PlaylistItem[];
}

/** A dashboard the player shows. */
export interface QueueEntry {
  project: string;
  name: string;
  title: string;
}

/** What a playlist plays, in order, and what it leaves out (with why, in words). */
export interface Queue {
  entries: QueueEntry[];
  skipped: string[];
}

const byTitle = (a: QueueEntry, b: QueueEntry) => a.title.localeCompare(b.title) || a.name.localeCompare(b.name);

/**
 * The dashboards a playlist shows, in its order: a dashboard item as it is, a tag item as every
 * dashboard of its project with that tag, by title. Each project's dashboards are listed once; a
 * dashboard that does not exist, or a project the viewer may not read, is skipped and said so.
 */
export async function resolveQueue(playlist: Resource<PlaylistSpec>): Promise<Queue> {
  const own = playlist.metadata.project ?? '';
  const items = playlist.spec.items ?? [];
  const projectOf = (item: PlaylistItem) => item.dashboard?.project ?? item.project ?? own;
  const lists = new Map<string, Promise<Resource[] | ApiError>>();
  for (const item of items) {
    const p = projectOf(item);
    if (!lists.has(p))
      lists.set(
        p,
        list('dashboards', p).catch((e: ApiError) => e),
      );
  }
  const entries: QueueEntry[] = [];
  const skipped: string[] = [];
  for (const item of items) {
    const project = projectOf(item);
    const dashboards = await lists.get(project)!;
    const what = item.dashboard ? `dashboard ${project}/${item.dashboard.name}` : `the dashboards tagged "${item.tag}" in ${project}`;
    if (!Array.isArray(dashboards)) {
      skipped.push(`${what}: ${dashboards.status === 403 ? `you may not read the dashboards of ${project}` : dashboards.message}`);
      continue;
    }
    const entry = (d: Resource): QueueEntry => ({ project, name: d.metadata.name, title: displayName(d) });
    if (item.dashboard) {
      const found = dashboards.find((d) => d.metadata.name === item.dashboard!.name);
      if (found) entries.push(entry(found));
      else skipped.push(`${what}: it does not exist`);
      continue;
    }
    const tagged = dashboards.filter((d) => d.metadata.tags?.includes(item.tag ?? '')).map(entry);
    if (tagged.length === 0) skipped.push(`${what}: there are none`);
    entries.push(...tagged.sort(byTitle));
  }
  return { entries, skipped };
}
