import type { Resource } from './api';

/**
 * How the UI presents and edits one kind. Every kind the server serves (docs/api.md §1) is here,
 * with the same plural and scope: test/ui-kinds.test.ts checks this list against the server's.
 */
export interface KindUi {
  kind: string;
  plural: string;
  label: string;
  labelPlural: string;
  scope: 'project' | 'global';
  /** Where the display name is, for kinds that have one (rename). */
  displayPath?: string[];
  /** Shown as a rendered dashboard. */
  view?: boolean;
  /** Keeps versions (history page, recently deleted). */
  history?: boolean;
  /** May be copied under a new name (not secrets: their values cannot be read back). */
  duplicable?: boolean;
  /** Played full-screen at `<object>/play` (playlists). */
  playable?: boolean;
  /** Managed on a page of its own (this path), not in the project and admin tables. */
  elsewhere?: string;
  /** The spec of a new object. */
  newSpec(): unknown;
  /** One line about the object for lists (plugin kind, role, subjects...). */
  summary?(r: Resource): string | undefined;
  /** More columns of lists (a datasource's URL and default flag); searched like the summary. */
  columns?: { label: string; cell(r: Resource): string }[];
}

const display = ['spec', 'display', 'name'];
const pluginKind = (r: Resource) => (r.spec as { plugin?: { kind?: string } }).plugin?.kind;
/** A datasource's URL: the one the server's proxy calls, or the one browsers call directly. */
const datasourceUrl = (r: Resource) => {
  const s = (r.spec as { plugin?: { spec?: { directUrl?: string; proxy?: { spec?: { url?: string } } } } }).plugin?.spec;
  if (s?.proxy?.spec?.url) return `${s.proxy.spec.url} (through the proxy)`;
  return s?.directUrl ? `${s.directUrl} (browsers call it)` : '';
};
const datasourceColumns = [
  { label: 'URL', cell: datasourceUrl },
  { label: 'Default', cell: (r: Resource) => ((r.spec as { default?: boolean }).default ? 'default' : '') },
];
const emptyDashboard = () => ({ display: { name: '' }, duration: '1h', panels: {}, layouts: [] });
const prometheus = () => ({
  default: false,
  plugin: { kind: 'PrometheusDatasource', spec: { proxy: { kind: 'HTTPProxy', spec: { url: '' } } } },
});
const textVariable = () => ({ kind: 'TextVariable', spec: { value: '' } });
const variableSummary = (r: Resource) => {
  const s = r.spec as { kind?: string; spec?: { plugin?: { kind?: string } } };
  return s.spec?.plugin?.kind ?? s.kind;
};
const roleSummary = (r: Resource) => {
  const perms = (r.spec as { permissions?: { actions: string[]; scopes: string[] }[] }).permissions ?? [];
  return perms.map((p) => `${p.actions.join(',')} on ${p.scopes.join(',')}`).join('; ');
};
const bindingSummary = (r: Resource) => {
  const s = r.spec as { role?: string; subjects?: { name: string }[] };
  return `${s.role} → ${(s.subjects ?? []).map((x) => x.name).join(', ')}`;
};
const playlistSummary = (r: Resource) => {
  const s = r.spec as { interval?: string; items?: unknown[] };
  const n = s.items?.length ?? 0;
  return `${n} item${n === 1 ? '' : 's'}, each shown ${s.interval}`;
};
const secretSummary = (r: Resource) => {
  const s = r.spec as Record<string, unknown>;
  return ['basicAuth', 'authorization', 'oauth', 'tlsConfig'].filter((k) => s[k] !== undefined).join(', ') || 'empty';
};

export const KINDS: KindUi[] = [
  {
    kind: 'Project',
    plural: 'projects',
    label: 'project',
    labelPlural: 'projects',
    scope: 'global',
    displayPath: display,
    newSpec: () => ({ display: { name: '' } }),
  },
  {
    kind: 'Dashboard',
    plural: 'dashboards',
    label: 'dashboard',
    labelPlural: 'dashboards',
    scope: 'project',
    displayPath: display,
    view: true,
    history: true,
    duplicable: true,
    newSpec: emptyDashboard,
  },
  {
    kind: 'EphemeralDashboard',
    plural: 'ephemeraldashboards',
    label: 'ephemeral dashboard',
    labelPlural: 'ephemeral dashboards',
    scope: 'project',
    displayPath: display,
    view: true,
    duplicable: true,
    newSpec: () => ({ ...emptyDashboard(), ttl: '24h' }),
    summary: (r) => `expires ${(r.spec as { ttl?: string }).ttl} after its last update`,
  },
  {
    kind: 'Playlist',
    plural: 'playlists',
    label: 'playlist',
    labelPlural: 'playlists',
    scope: 'project',
    displayPath: display,
    history: true,
    duplicable: true,
    playable: true,
    newSpec: () => ({ display: { name: '' }, interval: '5m', items: [] }),
    summary: playlistSummary,
  },
  {
    kind: 'Folder',
    plural: 'folders',
    label: 'folder',
    labelPlural: 'folders',
    scope: 'project',
    displayPath: display,
    history: true,
    newSpec: () => ({ display: { name: '' }, items: [] }),
  },
  {
    kind: 'Datasource',
    plural: 'datasources',
    label: 'datasource',
    labelPlural: 'datasources',
    scope: 'project',
    displayPath: display,
    history: true,
    duplicable: true,
    newSpec: prometheus,
    summary: pluginKind,
    columns: datasourceColumns,
  },
  {
    kind: 'Variable',
    plural: 'variables',
    label: 'variable',
    labelPlural: 'variables',
    scope: 'project',
    displayPath: ['spec', 'spec', 'display', 'name'],
    history: true,
    duplicable: true,
    newSpec: textVariable,
    summary: variableSummary,
  },
  {
    kind: 'Secret',
    plural: 'secrets',
    label: 'secret',
    labelPlural: 'secrets',
    scope: 'project',
    newSpec: () => ({}),
    summary: secretSummary,
  },
  {
    kind: 'Role',
    plural: 'roles',
    label: 'role',
    labelPlural: 'roles',
    scope: 'project',
    duplicable: true,
    newSpec: () => ({ permissions: [{ actions: ['read'], scopes: ['Dashboard'] }] }),
    summary: roleSummary,
  },
  {
    kind: 'RoleBinding',
    plural: 'rolebindings',
    label: 'role binding',
    labelPlural: 'role bindings',
    scope: 'project',
    duplicable: true,
    newSpec: () => ({ role: '', subjects: [] }),
    summary: bindingSummary,
  },
  {
    kind: 'GlobalDatasource',
    plural: 'globaldatasources',
    label: 'global datasource',
    labelPlural: 'global datasources',
    scope: 'global',
    displayPath: display,
    history: true,
    duplicable: true,
    newSpec: prometheus,
    summary: pluginKind,
    columns: datasourceColumns,
  },
  {
    kind: 'GlobalVariable',
    plural: 'globalvariables',
    label: 'global variable',
    labelPlural: 'global variables',
    scope: 'global',
    displayPath: ['spec', 'spec', 'display', 'name'],
    history: true,
    duplicable: true,
    newSpec: textVariable,
    summary: variableSummary,
  },
  {
    kind: 'GlobalSecret',
    plural: 'globalsecrets',
    label: 'global secret',
    labelPlural: 'global secrets',
    scope: 'global',
    newSpec: () => ({}),
    summary: secretSummary,
  },
  {
    kind: 'GlobalRole',
    plural: 'globalroles',
    label: 'global role',
    labelPlural: 'global roles',
    scope: 'global',
    duplicable: true,
    newSpec: () => ({ permissions: [{ actions: ['read'], scopes: ['*'] }] }),
    summary: roleSummary,
  },
  {
    kind: 'GlobalRoleBinding',
    plural: 'globalrolebindings',
    label: 'global role binding',
    labelPlural: 'global role bindings',
    scope: 'global',
    duplicable: true,
    newSpec: () => ({ role: '', subjects: [] }),
    summary: bindingSummary,
  },
  {
    kind: 'User',
    plural: 'users',
    label: 'user',
    labelPlural: 'users',
    scope: 'global',
    newSpec: () => ({ nativeProvider: { password: '' } }),
    summary: (r) =>
      [(r.spec as { firstName?: string }).firstName, (r.spec as { lastName?: string }).lastName].filter(Boolean).join(' ') || undefined,
  },
  // Teams and robots have the Access page (groups, service accounts and their tokens).
  {
    kind: 'Group',
    plural: 'groups',
    label: 'group',
    labelPlural: 'groups',
    scope: 'global',
    elsewhere: '/admin/access',
    newSpec: () => ({ members: [] }),
  },
  {
    kind: 'ServiceAccount',
    plural: 'serviceaccounts',
    label: 'service account',
    labelPlural: 'service accounts',
    scope: 'project',
    elsewhere: '/admin/access',
    newSpec: () => ({}),
  },
  {
    kind: 'GlobalServiceAccount',
    plural: 'globalserviceaccounts',
    label: 'global service account',
    labelPlural: 'global service accounts',
    scope: 'global',
    elsewhere: '/admin/access',
    newSpec: () => ({}),
  },
];

export function kindByPlural(plural: string): KindUi {
  const k = KINDS.find((x) => x.plural === plural);
  if (!k) throw new Error(`unknown resource type ${plural}`);
  return k;
}

/** Kinds that a project Role may grant (global kinds cannot be, docs/api.md §12). */
export const PROJECT_KIND_NAMES = KINDS.filter((k) => k.scope === 'project')
  .map((k) => k.kind)
  .concat(['Project']);
/** Every kind a GlobalRole may grant. */
export const ALL_KIND_NAMES = KINDS.map((k) => k.kind);

/** The display name at the kind's path, if any. */
export function titleOf(k: KindUi, r: Resource): string | undefined {
  if (!k.displayPath) return undefined;
  let cur: unknown = r;
  for (const p of k.displayPath) cur = (cur as Record<string, unknown> | undefined)?.[p];
  return typeof cur === 'string' && cur.trim() ? cur : undefined;
}

/** A copy of the object with its display name set (parents created as needed). */
export function withTitle(k: KindUi, r: Resource, title: string): Resource {
  const copy = structuredClone(r);
  let cur = copy as unknown as Record<string, unknown>;
  const path = k.displayPath!;
  for (const p of path.slice(0, -1)) {
    if (cur[p] === undefined || cur[p] === null || typeof cur[p] !== 'object') cur[p] = {};
    cur = cur[p] as Record<string, unknown>;
  }
  if (title) cur[path[path.length - 1]] = title;
  else delete cur[path[path.length - 1]];
  return copy;
}

/** Global kinds managed on /admin (Project is on the home page). */
export const ADMIN_KINDS = KINDS.filter((k) => k.scope === 'global' && k.kind !== 'Project' && !k.elsewhere).map((k) => k.kind);
