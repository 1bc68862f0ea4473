import { getJson, list, type Resource } from '../api';
import { dashboardUses, implicitDatasourceKinds, type PluginModuleInfo } from './datasource-users';
import { whereIs } from './folders';
import { KINDS, type KindUi } from '../kinds';

/** What deleting an object takes with it or breaks, in sentences for the confirmation. */
export interface Consequences {
  /** Things deleted along with it. */
  removes: string[];
  /** Things that keep existing but lose something. */
  affects: string[];
  /** Whether it can be brought back (its history is kept). */
  restorable: boolean;
}

/** Lists that the user may not read count as unknown rather than failing the dialog. */
async function tryList(plural: string, project?: string, query: Record<string, string> = {}): Promise<Resource[] | undefined> {
  try {
    return await list(plural, project, query);
  } catch {
    return undefined;
  }
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
const names = (rs: Resource[]) => rs.map((r) => `“${r.metadata.name}”`).join(', ');

/** The secret a datasource's proxy names, wherever the proxy block is. */
function secretOf(value: unknown, depth = 0): string | undefined {
  if (depth > 20 || value === null || typeof value !== 'object') return undefined;
  const o = value as Record<string, unknown>;
  if (o.kind === 'HTTPProxy' && typeof (o.spec as { secret?: unknown })?.secret === 'string') return (o.spec as { secret: string }).secret;
  for (const v of Object.values(o)) {
    const s = secretOf(v, depth + 1);
    if (s) return s;
  }
  return undefined;
}

export async function consequencesOf(k: KindUi, r: Resource): Promise<Consequences> {
  const project = r.metadata.project;
  const name = r.metadata.name;
  const out: Consequences = { removes: [], affects: [], restorable: k.history === true };
  switch (k.kind) {
    case 'Project': {
      for (const inner of KINDS.filter((x) => x.scope === 'project')) {
        const items = await tryList(inner.plural, name, { metadata_only: 'true' });
        if (items === undefined) out.removes.push(`every ${inner.label} in it (you cannot list them)`);
        else if (items.length > 0) out.removes.push(plural(items.length, inner.label, inner.labelPlural));
      }
      out.removes.push('the version history of everything in it');
      out.restorable = false;
      break;
    }
    case 'Dashboard': {
      const folders = (await tryList('folders', project)) ?? [];
      const where = whereIs(folders, name);
      if (where.length)
        out.affects.push(`It is removed from the folder${where.length > 1 ? 's' : ''} ${where.map((w) => `“${w.label}”`).join(', ')}.`);
      // the playlists of every project the user may read that name it (a tag's dashboards come and go)
      const shownBy = ((await tryList('playlists')) ?? []).filter((p) =>
        ((p.spec as { items?: { dashboard?: { name: string; project?: string } }[] }).items ?? []).some(
          (i) => i.dashboard?.name === name && (i.dashboard.project ?? p.metadata.project) === project,
        ),
      );
      if (shownBy.length)
        out.affects.push(`${plural(shownBy.length, 'playlist shows', 'playlists show')} it and will skip it: ${names(shownBy)}.`);
      break;
    }
    case 'Datasource':
    case 'GlobalDatasource': {
      const pluginKind = (r.spec as { plugin?: { kind?: string } }).plugin?.kind;
      const isDefault = (r.spec as { default?: boolean }).default === true;
      const dashboards = (await tryList('dashboards', k.scope === 'project' ? project : undefined)) ?? [];
      const modules = await getJson<PluginModuleInfo[]>('/api/v1/plugins').catch(() => [] as PluginModuleInfo[]);
      const implicit = implicitDatasourceKinds(modules);
      const users = dashboards.filter((d) => dashboardUses(d.spec, { pluginKind, name, isDefault }, implicit));
      if (users.length)
        out.affects.push(
          `${plural(users.length, 'dashboard uses', 'dashboards use')} it and will show errors: ${names(users.slice(0, 8))}${users.length > 8 ? '…' : ''}.`,
        );
      break;
    }
    case 'Secret':
    case 'GlobalSecret': {
      const dsPlural = k.scope === 'project' ? 'datasources' : 'globaldatasources';
      const users = ((await tryList(dsPlural, project)) ?? []).filter((d) => secretOf(d.spec) === name);
      if (users.length)
        out.affects.push(`${plural(users.length, 'datasource sends', 'datasources send')} its credentials and will fail: ${names(users)}.`);
      out.affects.push('Its values cannot be recovered: nobody can read them back.');
      break;
    }
    case 'Role':
    case 'GlobalRole': {
      const bindingPlural = k.scope === 'project' ? 'rolebindings' : 'globalrolebindings';
      const bindings = ((await tryList(bindingPlural, project)) ?? []).filter((b) => (b.spec as { role?: string }).role === name);
      if (bindings.length)
        out.affects.push(
          `${plural(bindings.length, 'role binding names', 'role bindings name')} it; their users lose these permissions: ${names(bindings)}.`,
        );
      break;
    }
    case 'RoleBinding':
    case 'GlobalRoleBinding': {
      const s = r.spec as { role?: string; subjects?: { name: string }[] };
      out.affects.push(
        `${(s.subjects ?? []).map((x) => x.name).join(', ') || 'Nobody'} lose${(s.subjects ?? []).length === 1 ? 's' : ''} the role “${s.role}”${project ? ` in project “${project}”` : ''}.`,
      );
      break;
    }
    case 'User':
      out.affects.push('Their sessions end at once. Role bindings that name them stay, naming nobody who exists.');
      break;
    case 'Folder':
      out.affects.push('The dashboards it lists are not deleted; they are no longer in a folder.');
      break;
  }
  return out;
}
