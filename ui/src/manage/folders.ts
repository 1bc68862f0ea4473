import type { Resource } from '../api';

/** An entry of a Folder's tree: a dashboard (by name) or a sub-folder (by title) with its own items. */
export interface FolderItem {
  kind: 'Dashboard' | 'Folder';
  name: string;
  items?: FolderItem[];
}

export interface FolderSpec {
  display?: { name?: string };
  items?: FolderItem[];
}

/** A place a dashboard can be put: a Folder object and a path of sub-folder titles inside it. */
export interface Location {
  folder: string;
  path: string[];
  label: string;
}

const itemsOf = (f: Resource) => ((f.spec as FolderSpec).items ?? []) as FolderItem[];
const titleOf = (f: Resource) => (f.spec as FolderSpec).display?.name || f.metadata.name;

/** Every folder and sub-folder, depth first, labelled "Folder / Sub / Sub". */
export function locations(folders: Resource[]): Location[] {
  const out: Location[] = [];
  const walk = (folder: string, label: string, path: string[], items: FolderItem[]) => {
    out.push({ folder, path, label });
    for (const i of items) if (i.kind === 'Folder') walk(folder, `${label} / ${i.name}`, [...path, i.name], i.items ?? []);
  };
  for (const f of folders) walk(f.metadata.name, titleOf(f), [], itemsOf(f));
  return out;
}

/** Where a dashboard is listed. */
export function whereIs(folders: Resource[], dashboard: string): Location[] {
  const out: Location[] = [];
  const walk = (folder: string, label: string, path: string[], items: FolderItem[]) => {
    for (const i of items) {
      if (i.kind === 'Dashboard' && i.name === dashboard) out.push({ folder, path, label });
      if (i.kind === 'Folder') walk(folder, `${label} / ${i.name}`, [...path, i.name], i.items ?? []);
    }
  };
  for (const f of folders) walk(f.metadata.name, titleOf(f), [], itemsOf(f));
  return out;
}

/** The folder's spec without any entry of the dashboard. */
export function withoutDashboard(spec: FolderSpec, dashboard: string): FolderSpec {
  const strip = (items: FolderItem[]): FolderItem[] =>
    items
      .filter((i) => !(i.kind === 'Dashboard' && i.name === dashboard))
      .map((i) => (i.kind === 'Folder' ? { ...i, items: strip(i.items ?? []) } : i));
  return { ...spec, items: strip(spec.items ?? []) };
}

/** The folder's spec with the dashboard added at `path` (sub-folder titles). */
export function withDashboard(spec: FolderSpec, path: string[], dashboard: string): FolderSpec {
  const add = (items: FolderItem[], rest: string[]): FolderItem[] => {
    if (rest.length === 0) return [...items, { kind: 'Dashboard', name: dashboard }];
    return items.map((i) => (i.kind === 'Folder' && i.name === rest[0] ? { ...i, items: add(i.items ?? [], rest.slice(1)) } : i));
  };
  return { ...spec, items: add(spec.items ?? [], path) };
}

/** Every dashboard name listed anywhere in the folders. */
export function listedDashboards(folders: Resource[]): Set<string> {
  const out = new Set<string>();
  const walk = (items: FolderItem[]) => {
    for (const i of items) {
      if (i.kind === 'Dashboard') out.add(i.name);
      else walk(i.items ?? []);
    }
  };
  for (const f of folders) walk(itemsOf(f));
  return out;
}
