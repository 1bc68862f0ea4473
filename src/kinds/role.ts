import type { ErrorDetail } from '../errors.js';
import type { HookContext, KindDescriptor } from './descriptor.js';
import { GlobalRole, Role } from './generated/validators.js';

/** Kinds a project Role may not name: they only exist outside projects (docs/api.md §12). */
const GLOBAL_ONLY = new Set(['GlobalDatasource', 'GlobalRole', 'GlobalRoleBinding', 'GlobalSecret', 'GlobalVariable', 'User']);

interface Permission {
  actions?: unknown[];
  scopes?: unknown[];
}

function scopeProblems(obj: { spec: unknown }, ctx: HookContext, projectRole: boolean): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const perms = ((obj.spec as { permissions?: Permission[] }).permissions ?? []) as Permission[];
  perms.forEach((p, i) =>
    (p.scopes ?? []).forEach((scope, j) => {
      const path = `spec.permissions[${i}].scopes[${j}]`;
      if (scope === '*') return;
      if (typeof scope !== 'string' || !ctx.kinds.has(scope)) {
        out.push({ path, message: `"${String(scope)}" is not a kind; use "*" or one of ${[...ctx.kinds.keys()].join(', ')}` });
      } else if (projectRole && GLOBAL_ONLY.has(scope)) {
        out.push({ path, message: `a Role cannot grant access to the global kind ${scope}; use a GlobalRole` });
      }
    }),
  );
  return out;
}

/** Perses accepts actions in any case ("Read"); they are stored lower-case. */
function lowerCaseActions(body: Record<string, unknown>): void {
  const perms = (body.spec as { permissions?: unknown } | undefined)?.permissions;
  if (!Array.isArray(perms)) return;
  for (const p of perms as Permission[]) {
    if (Array.isArray(p?.actions)) p.actions = p.actions.map((a) => (typeof a === 'string' ? a.toLowerCase() : a));
  }
}

export const role: KindDescriptor = {
  kind: 'Role',
  plural: 'roles',
  scope: 'project',
  validate: Role,
  authz: 'role',
  hooks: { normalize: lowerCaseActions, validate: (obj, ctx) => scopeProblems(obj, ctx, true) },
};

export const globalRole: KindDescriptor = {
  kind: 'GlobalRole',
  plural: 'globalroles',
  scope: 'global',
  validate: GlobalRole,
  authz: 'role',
  hooks: { normalize: lowerCaseActions, validate: (obj, ctx) => scopeProblems(obj, ctx, false) },
};
