import type { KindDescriptor } from './descriptor.js';
import { GlobalRoleBinding, RoleBinding } from './generated/validators.js';

/** The role a binding names cannot change: delete and re-create the binding instead. */
const immutable = ['spec.role'];

export const roleBinding: KindDescriptor = {
  kind: 'RoleBinding',
  plural: 'rolebindings',
  scope: 'project',
  validate: RoleBinding,
  authz: 'binding',
  immutable,
};

export const globalRoleBinding: KindDescriptor = {
  kind: 'GlobalRoleBinding',
  plural: 'globalrolebindings',
  scope: 'global',
  validate: GlobalRoleBinding,
  authz: 'binding',
  immutable,
};
