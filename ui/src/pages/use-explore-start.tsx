import { Link } from '@mui/material';
import { type ReactNode, useEffect } from 'react';
import { Link as RouterLink, useNavigate, useSearchParams } from 'react-router-dom';
import { useCan } from '../permissions';
import { type Queryable, rememberDatasource, rememberProject, startDatasource, startProject } from './explore-start';

const enc = encodeURIComponent;

/**
 * Where Explore starts (explore-start.ts). Without a project in the URL (the top menu's Explore)
 * it goes to the last used one, else the first holding a datasource; in a project, a Prometheus
 * explorer without queries (`kind`: its datasource kind) gets one on the datasource last used
 * there, else the default, else the first. `kinds`: those of every explorer. When there is
 * nothing to query, `hint` says what to do; `waiting` until the explorer can start.
 */
export function useExploreStart(
  project: string | undefined,
  dashboard: string | undefined,
  q: Queryable | undefined,
  kinds: string[],
  kind: string | undefined,
): { waiting: boolean; hint?: ReactNode } {
  const [params, setParams] = useSearchParams();
  const navigate = useNavigate();
  const { can } = useCan();
  const target = q && !project && !dashboard ? startProject(q, kinds) : undefined;
  const redirecting = target !== undefined && target !== '';
  useEffect(() => {
    if (redirecting) navigate(`/projects/${enc(target)}/explore?${params}`, { replace: true });
    else if (project) rememberProject(project);
  }, [redirecting, target, project, params, navigate]);
  const data = parseData(params.get('data'));
  const named = data.queries?.[0]?.spec?.plugin?.spec?.datasource?.name;
  const where = project ?? '';
  const initial = q && kind && !redirecting && !data.queries?.length ? startDatasource(q, where, kind) : undefined;
  useEffect(() => {
    if (named) rememberDatasource(where, named);
  }, [named, where]);
  useEffect(() => {
    if (!initial?.name) return;
    const next = new URLSearchParams(params);
    next.set(
      'data',
      JSON.stringify({
        ...data,
        queries: [
          { kind: 'TimeSeriesQuery', spec: { plugin: { kind: 'PrometheusTimeSeriesQuery', spec: { query: '', datasource: initial } } } },
        ],
      }),
    );
    setParams(next, { replace: true });
    // once, for a URL without queries
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [initial?.name]);
  // the explorer mounts with its first query in place: its editor keeps what it started with
  const waiting = redirecting || (!q && !dashboard && (!project || (!!kind && !data.queries?.length))) || !!initial?.name;
  if (!q || waiting) return { waiting };
  if (!project && !dashboard && target === undefined) {
    if (!q.projects.length) {
      return {
        waiting,
        hint: can('create', 'Project')
          ? 'There is nothing to explore yet: create a project (New project on the home page) and add a datasource to it, or ask an administrator for a role in a project that has one.'
          : 'There is nothing to explore yet: ask an administrator for a role in a project that has a datasource.',
      };
    }
    const first = q.projects[0].metadata.name;
    return {
      waiting,
      hint: (
        <>
          None of your projects has a datasource to query: add one in a project&apos;s Datasources tab (for example{' '}
          <Link component={RouterLink} to={`/projects/${enc(first)}?tab=datasources`}>
            {first}
          </Link>
          ), or ask its owner to.
        </>
      ),
    };
  }
  if (kind && !data.queries?.length && !initial) {
    const scope = project ? `Project “${project}”` : 'There';
    return {
      waiting,
      hint: (
        <>
          {scope} has no {kind.replace(/Datasource$/, '')} datasource to query
          {project ? ', and there is no global one' : ' among the global datasources'}:{' '}
          {project ? (
            <Link component={RouterLink} to={`/projects/${enc(project)}?tab=datasources`}>
              add one in its Datasources tab
            </Link>
          ) : (
            'add one'
          )}
          , or choose another project above.
        </>
      ),
    };
  }
  return { waiting };
}

interface ExploreData {
  queries?: { spec?: { plugin?: { spec?: { datasource?: { name?: string } } } } }[];
  [key: string]: unknown;
}

function parseData(text: string | null): ExploreData {
  try {
    return text ? (JSON.parse(text) as ExploreData) : {};
  } catch {
    return {};
  }
}
