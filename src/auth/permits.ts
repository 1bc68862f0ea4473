import type { Action, AuthzTarget, NarrowedPermission } from '../access/authorizer.js';
import type { ContentsIndex } from './contents.js';
import type { Permission } from './grants.js';

const actionMatches = (actions: readonly string[], action: Action) => actions.includes(action) || actions.includes('*');
const kindMatches = (scopes: readonly string[], kind: string) => scopes.includes(kind) || scopes.includes('*');

/** Whether a permission names objects (resources, folders) rather than a whole kind. */
function isObjectScoped(p: Permission): boolean {
  return p.resources !== undefined || p.folders !== undefined;
}

/** Whether a permission list grants `action` on every object of `kind` (`*` matches any action or kind). */
export function grants(perms: readonly Permission[], action: Action, kind: string): boolean {
  return perms.some((p) => !isObjectScoped(p) && actionMatches(p.actions, action) && kindMatches(p.scopes, kind));
}

/** The permissions granting `action` on some objects of `kind` only. */
export function objectScoped(perms: readonly Permission[], action: Action, kind: string): Permission[] {
  return perms.filter((p) => isObjectScoped(p) && actionMatches(p.actions, action) && kindMatches(p.scopes, kind));
}

/**
 * Whether one permission allows `action` on the target: a whole-kind permission always; one
 * naming `resources` when the target's name is among them; one naming `folders` when the target
 * is such a folder of its project or listed by one (`contents`). A target without a name (a whole
 * list) is never allowed by an object-scoped permission.
 */
export function permits(p: Permission, action: Action, t: AuthzTarget, contents?: ContentsIndex): boolean {
  if (!actionMatches(p.actions, action) || !kindMatches(p.scopes, t.kind)) return false;
  if (!isObjectScoped(p)) return true;
  if (t.name === undefined) return false;
  if (p.resources?.includes(t.name)) return true;
  return p.folders !== undefined && t.project !== undefined && contents?.covers(t.project, p.folders, t.kind, t.name) === true;
}

/** Whether a token's narrowed permissions allow `action` on the target (a global target: only permissions without projects). */
export function narrowedAllows(perms: readonly NarrowedPermission[], action: Action, t: Pick<AuthzTarget, 'kind' | 'project'>): boolean {
  return perms.some(
    (n) =>
      actionMatches(n.actions, action) &&
      kindMatches(n.scopes, t.kind) &&
      (n.projects === undefined || (t.project !== undefined && n.projects.includes(t.project))),
  );
}

/** Every project a narrowed token names (where a global read still reaches). */
export function narrowedProjects(perms: readonly NarrowedPermission[]): string[] {
  return perms.flatMap((n) => n.projects ?? []);
}
