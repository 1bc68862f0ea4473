import type { ErrorDetail } from '../errors.js';
import { isObj } from '../lib/is-obj.js';
import type { HookContext, KindDescriptor } from './descriptor.js';
import type { GlobalRole as GlobalRoleObject, Role as RoleObject } from './generated/types.js';
import { GlobalRole, Role } from './generated/validators.js';

/**
 * Kinds a project Role may not name: those that only exist outside projects (docs/api.md §12),
 * every global kind of the registry but the project kind (a Role may grant read on its project).
 */
const globalOnly = (kind: string, ctx: HookContext) => ctx.kinds.get(kind) === 'global' && kind !== ctx.projectKind;

/** Kinds a `folders` permission can cover: a folder, and the dashboards it lists. */
const FOLDER_SCOPES = ['*', 'Folder', 'Dashboard'];

function scopeProblems(obj: RoleObject | GlobalRoleObject, ctx: HookContext, projectRole: boolean): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const perms = obj.spec.permissions ?? [];
  perms.forEach((p, i) => {
    if (p?.folders !== undefined && Array.isArray(p.scopes) && !p.scopes.some((s) => FOLDER_SCOPES.includes(s))) {
      out.push({
        path: `spec.permissions[${i}].folders`,
        message: 'covers folders and the dashboards they list: add Folder, Dashboard or "*" to scopes',
      });
    }
  });
  perms.forEach((p, i) =>
    (p.scopes ?? []).forEach((scope, j) => {
      const path = `spec.permissions[${i}].scopes[${j}]`;
      if (scope === '*') return;
      if (typeof scope !== 'string' || !ctx.kinds.has(scope)) {
        out.push({ path, message: `"${String(scope)}" is not a kind; use "*" or one of ${[...ctx.kinds.keys()].join(', ')}` });
      } else if (projectRole && globalOnly(scope, ctx)) {
        out.push({ path, message: `a Role cannot grant access to the global kind ${scope}; use a GlobalRole` });
      }
    }),
  );
  return out;
}

/**
 * Perses accepts actions and scopes in any case ("Read", "dashboard"); actions are stored
 * lower-case, scopes as the kind's own name ("Dashboard").
 */
function canonicalPermissions(body: Record<string, unknown>, ctx?: HookContext): void {
  const perms = isObj(body.spec) ? body.spec.permissions : undefined;
  if (!Array.isArray(perms)) return;
  const kinds = new Map([...(ctx?.kinds.keys() ?? [])].map((k) => [k.toLowerCase(), k]));
  for (const p of perms) {
    if (isObj(p) && Array.isArray(p.actions)) p.actions = p.actions.map((a: unknown) => (typeof a === 'string' ? a.toLowerCase() : a));
    if (isObj(p) && Array.isArray(p.scopes))
      p.scopes = p.scopes.map((s: unknown) => (typeof s === 'string' ? (kinds.get(s.toLowerCase()) ?? s) : s));
  }
}

export const role: KindDescriptor<RoleObject> = {
  kind: 'Role',
  plural: 'roles',
  scope: 'project',
  validate: Role,
  authz: 'role',
  hooks: { normalize: canonicalPermissions, validate: (obj, ctx) => scopeProblems(obj, ctx, true) },
};

export const globalRole: KindDescriptor<GlobalRoleObject> = {
  kind: 'GlobalRole',
  plural: 'globalroles',
  shortNames: ['grole'],
  scope: 'global',
  validate: GlobalRole,
  authz: 'role',
  hooks: { normalize: canonicalPermissions, validate: (obj, ctx) => scopeProblems(obj, ctx, false) },
};
