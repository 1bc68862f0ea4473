import type { ErrorDetail } from '../errors.js';
import { parseDuration } from '../lib/duration.js';
import type { KindDescriptor } from './descriptor.js';
import type { Playlist as PlaylistObject } from './generated/types.js';
import { Playlist } from './generated/validators.js';

/** The shortest interval: a screen that changes faster than this cannot be read (Grafana has no floor; a typo like "5" is meant as minutes). */
const MIN_INTERVAL_MS = 5000;

/**
 * What the schema cannot say: an interval of at least 5 s, and each item either one dashboard or
 * one tag. The dashboards named need not exist: a playlist may be applied before them (dashctl
 * writes every object of a project in one phase), and the player skips a missing one.
 */
function playlistProblems(obj: PlaylistObject): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const ms = parseDuration(obj.spec?.interval);
  if (ms !== undefined && ms < MIN_INTERVAL_MS)
    problems.push({
      path: 'spec.interval',
      message: `is ${obj.spec.interval}: a dashboard must stay at least 5s on screen (e.g. "30s", "5m")`,
    });
  (Array.isArray(obj.spec?.items) ? obj.spec.items : []).forEach((item, i) => {
    const path = `spec.items[${i}]`;
    if (item?.dashboard === undefined && item?.tag === undefined)
      problems.push({ path, message: 'names nothing: give either dashboard: {name} or tag' });
    else if (item.dashboard !== undefined && item.tag !== undefined)
      problems.push({
        path,
        message: 'has both dashboard and tag: one item shows either one dashboard or the dashboards of a tag; make two items',
      });
    else if (item.dashboard !== undefined && item.project !== undefined)
      problems.push({ path: `${path}.project`, message: 'goes with tag only: the project of a dashboard is dashboard.project' });
  });
  return problems;
}

/** A playlist: dashboards shown in turn on a screen (dashplane's own kind, project-scoped like the dashboards it shows). */
export const playlist: KindDescriptor<PlaylistObject> = {
  kind: 'Playlist',
  plural: 'playlists',
  shortNames: ['pl'],
  scope: 'project',
  validate: Playlist,
  history: true,
  searchable: true,
  hooks: { validate: playlistProblems },
};
