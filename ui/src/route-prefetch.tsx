// A cold load of a dashboard waited on one thing after another: the app's code, the server's
// config, the session, then the dashboard page's code, then the dashboard, then (once Perses had
// drawn it) the datasource lists, and only then were the panels' queries sent. What the page is
// sure to ask for is asked for here as soon as it can be: its code at once, the dashboard as soon
// as a session is in sight, the datasource lists as soon as the permissions say the user may read
// them (the page asks for the variable lists at that moment itself). The page then finds the
// answers there (api.ts `prefetch`).
import { useEffect } from 'react';
import { prefetch, resourcePath } from './api';
import { useCan } from './permissions';
import { maybeSignedIn } from './session';

interface DashboardRoute {
  project: string;
  plural: string;
  name: string;
}

/** `/projects/{project}/dashboards/{name}` (or an ephemeral dashboard): the dashboard page's route. */
function dashboardRoute(pathname: string): DashboardRoute | undefined {
  const m = /^\/projects\/([^/]+)\/(dashboards|ephemeraldashboards)\/([^/]+)\/?$/.exec(pathname);
  if (!m) return undefined;
  try {
    return { project: decodeURIComponent(m[1]), plural: m[2], name: decodeURIComponent(m[3]) };
  } catch {
    return undefined;
  }
}

/** The dashboard the page was opened on, if any (set by startRouteLoad). */
let opened: DashboardRoute | undefined;
/** Whether startRouteLoad asked for the dashboard already. */
let dashboardAsked = false;

/**
 * Called once as the page starts (main.tsx), before the app asks for its config and session: on a
 * dashboard's address, loads the dashboard page's code (its chunks all at once); when a session is
 * in sight, asks who is signed in and for the dashboard.
 */
export function startRouteLoad(): void {
  opened = dashboardRoute(window.location.pathname);
  if (opened) void import('./pages/DashboardPage');
  if (!maybeSignedIn()) return;
  // who is signed in (App asks once the config says auth is on)
  prefetch('/api/v1/user/whoami');
  if (!opened) return;
  prefetch(resourcePath(opened.plural, opened.project, opened.name));
  dashboardAsked = true;
}

let listsAsked = false;

/**
 * Inside the signed-in app: once the permissions are known, the dashboard (with auth off there was
 * no session to wait for) and the datasource lists the dashboard's panels ask for once drawn, each
 * only if the user may read it (so no request answers 403 that the page would not have made).
 * Renders nothing.
 */
export function RoutePrefetch() {
  const { can, ready } = useCan();
  useEffect(() => {
    if (!ready || !opened || listsAsked) return;
    listsAsked = true;
    // still on the dashboard the page was opened on (not, say, sent to sign in and back)
    if (dashboardRoute(window.location.pathname)?.name !== opened.name) return;
    const { project, plural, name } = opened;
    if (!dashboardAsked) prefetch(resourcePath(plural, project, name));
    if (can('read', 'Datasource', project)) prefetch(resourcePath('datasources', project));
    if (can('read', 'GlobalDatasource')) prefetch(resourcePath('globaldatasources'));
  }, [can, ready]);
  return null;
}
