import type { DatasourceSelector } from '@perses-dev/core';
import { DatasourceStoreContext, type DatasourceStore, useDatasourceStore } from '@perses-dev/plugin-system';
import { type ReactNode, useMemo } from 'react';
import { type KnownDatasource, localDatasources, notFoundSentence, resolveDatasource } from '../../../src/lib/datasource-refs.js';
import type { CachingDatasourceApi } from '../datasource-api';

/**
 * A datasource no scope has: a 404, so that nothing retries it (the page's query client retries
 * only server errors) and the panel says so at once.
 */
export class MissingDatasourceError extends Error {
  readonly status = 404;
  override readonly name = 'MissingDatasourceError';
}

const known = (all: { metadata: { name: string }; spec: { default?: boolean; plugin: { kind: string } } }[]): KnownDatasource[] =>
  all.map((d) => ({ name: d.metadata.name, kind: d.spec.plugin.kind, isDefault: d.spec.default === true }));

/**
 * Perses' datasource store, with each selector first resolved by Perses' rules
 * (src/lib/datasource-refs.ts) against the lists the page already holds (the dashboard's own
 * datasources, the project's, the global ones): a datasource that none has is a plain sentence in
 * the panel — what it asks for, that the project does not have it, what to do — at once, instead of
 * Perses' "No datasource found ... name 'undefined'" after its retries. A list that cannot be read
 * leaves the selector to Perses.
 */
export function MissingDatasourceMessages({
  api,
  project,
  children,
}: {
  api: CachingDatasourceApi;
  project?: string;
  children: ReactNode;
}) {
  const inner = useDatasourceStore();
  const value = useMemo<DatasourceStore>(() => {
    const check = async (selector: DatasourceSelector) => {
      let scopes;
      try {
        const [own, global] = await Promise.all([project ? api.listDatasources(project) : [], api.listGlobalDatasources()]);
        scopes = {
          dashboard: localDatasources({ datasources: inner.getLocalDatasources() }),
          project: known(own),
          ...(api.readsGlobal ? { global: known(global) } : {}),
        };
      } catch {
        return;
      }
      if (resolveDatasource(selector, { ...scopes, global: scopes.global ?? [] }) !== undefined) return;
      const looked = { dashboard: scopes.dashboard.length > 0, ...(project ? { project } : {}), global: scopes.global !== undefined };
      throw new MissingDatasourceError(
        `This panel ${notFoundSentence({ selector, implicit: false }, looked).replace(/name (another|one)$/, 'pick $1')}.`,
      );
    };
    return {
      ...inner,
      getDatasource: async (selector) => {
        await check(selector);
        return inner.getDatasource(selector);
      },
      getDatasourceClient: async <Client,>(selector: DatasourceSelector) => {
        await check(selector);
        return inner.getDatasourceClient<Client>(selector);
      },
    };
  }, [inner, api, project]);
  return <DatasourceStoreContext.Provider value={value}>{children}</DatasourceStoreContext.Provider>;
}
