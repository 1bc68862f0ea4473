import type { DatasourceResource, DatasourceSelector, GlobalDatasourceResource } from '@perses-dev/core';
import type { DatasourceApi } from '@perses-dev/dashboards';
import { useMemo } from 'react';
import { pickDatasource } from '../../src/lib/datasource-refs.js';
import { enc, list } from './api';
import { useCan } from './permissions';

/** How long a fetched datasource list is reused (a page renders many panels at once). */
const LIST_TTL_MS = 30_000;

interface Cached<T> {
  at: number;
  value: Promise<T[]>;
}

type AnyDatasource = DatasourceResource | GlobalDatasourceResource;

/**
 * The DatasourceApi the Perses components resolve datasource selectors with. One list call per
 * project (and one for global datasources) serves every panel of the page;
 * selectors without a name mean the default datasource of that plugin kind, and names match
 * exactly first, then case-insensitively (Perses lower-cases names; dashplane keeps them).
 * `readsGlobal` false (the user's permissions say a list of global datasources would answer 403)
 * sends no such request: there are none for this user.
 */
export class CachingDatasourceApi implements DatasourceApi {
  private readonly projectLists = new Map<string, Cached<DatasourceResource>>();
  private globalList?: Cached<GlobalDatasourceResource> | undefined;

  /** `readsGlobal` false: the user may not read global datasources, and none is asked for. */
  constructor(readonly readsGlobal = true) {}

  buildProxyUrl = ({ project, dashboard, name }: { project?: string; dashboard?: string; name: string }): string => {
    if (project && dashboard) return `/proxy/projects/${enc(project)}/dashboards/${enc(dashboard)}/datasources/${enc(name)}`;
    if (project) return `/proxy/projects/${enc(project)}/datasources/${enc(name)}`;
    return `/proxy/globaldatasources/${enc(name)}`;
  };

  getDatasource = async (project: string, selector: DatasourceSelector): Promise<DatasourceResource | undefined> =>
    pick(await this.projectDatasources(project), selector);

  getGlobalDatasource = async (selector: DatasourceSelector): Promise<GlobalDatasourceResource | undefined> =>
    pick(await this.globalDatasources(), selector);

  listDatasources = async (project: string, pluginKind?: string): Promise<DatasourceResource[]> =>
    (await this.projectDatasources(project)).filter((d) => pluginKind === undefined || d.spec.plugin.kind === pluginKind);

  listGlobalDatasources = async (pluginKind?: string): Promise<GlobalDatasourceResource[]> =>
    (await this.globalDatasources()).filter((d) => pluginKind === undefined || d.spec.plugin.kind === pluginKind);

  private projectDatasources(project: string): Promise<DatasourceResource[]> {
    const hit = this.projectLists.get(project);
    if (hit && Date.now() - hit.at < LIST_TTL_MS) return hit.value;
    const value = list<DatasourceResource>('datasources', project).catch((e) => {
      this.projectLists.delete(project); // do not keep a failure
      throw e;
    });
    this.projectLists.set(project, { at: Date.now(), value });
    return value;
  }

  private globalDatasources(): Promise<GlobalDatasourceResource[]> {
    if (!this.readsGlobal) return Promise.resolve([]);
    const hit = this.globalList;
    if (hit && Date.now() - hit.at < LIST_TTL_MS) return hit.value;
    const value = list<GlobalDatasourceResource>('globaldatasources').catch((e) => {
      this.globalList = undefined;
      // permissions changed since they were loaded: a viewer without read on global datasources still sees project ones
      if ((e as { status?: number }).status === 403) return [];
      throw e;
    });
    this.globalList = { at: Date.now(), value };
    return value;
  }
}

/**
 * The page's CachingDatasourceApi, which lists global datasources only if the signed-in user may
 * read them (GET /api/v1/users/{me}/permissions; all with auth off): undefined until those
 * permissions are known. A new `scope` (e.g. another dashboard) starts with empty lists.
 */
export function useDatasourceApi(scope = ''): CachingDatasourceApi | undefined {
  const { can, ready } = useCan();
  const readGlobal = can('read', 'GlobalDatasource');
  return useMemo(() => (ready ? new CachingDatasourceApi(readGlobal) : undefined), [ready, readGlobal, scope]);
}

/** The datasource a selector picks in one scope's list (src/lib/datasource-refs.ts: Perses' rules). */
function pick<T extends AnyDatasource>(all: T[], selector: DatasourceSelector): T | undefined {
  return pickDatasource(
    all.map((resource) => ({
      name: resource.metadata.name,
      kind: resource.spec.plugin.kind,
      isDefault: resource.spec.default === true,
      resource,
    })),
    selector,
  )?.resource;
}
