import type { ErrorDetail } from '../errors.js';
import type { HookContext, KindDescriptor } from './descriptor.js';
import type { GlobalRoleBinding as GlobalRoleBindingObject, RoleBinding as RoleBindingObject } from './generated/types.js';
import { GlobalRoleBinding, RoleBinding } from './generated/validators.js';

/** The role a binding names cannot change: delete and re-create the binding instead. */
const immutable = ['spec.role'];

/** A GlobalRoleBinding cannot name a subject that lives in a project (a project's service account). */
function globalSubjectProblems(obj: GlobalRoleBindingObject, ctx: HookContext): ErrorDetail[] {
  const subjects = obj.spec.subjects ?? [];
  return subjects.flatMap((s, i) =>
    typeof s?.kind === 'string' && ctx.kinds.get(s.kind) === 'project'
      ? [
          {
            path: `spec.subjects[${i}].kind`,
            message: `a ${s.kind} lives in a project: bind it with a RoleBinding of its project, or use a global subject kind here`,
          },
        ]
      : [],
  );
}

export const roleBinding: KindDescriptor<RoleBindingObject> = {
  kind: 'RoleBinding',
  plural: 'rolebindings',
  shortNames: ['rb'],
  scope: 'project',
  validate: RoleBinding,
  authz: 'binding',
  immutable,
};

export const globalRoleBinding: KindDescriptor<GlobalRoleBindingObject> = {
  kind: 'GlobalRoleBinding',
  plural: 'globalrolebindings',
  shortNames: ['grb'],
  scope: 'global',
  validate: GlobalRoleBinding,
  authz: 'binding',
  immutable,
  hooks: { validate: globalSubjectProblems },
};
