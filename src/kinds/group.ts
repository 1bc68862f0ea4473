import type { KindDescriptor } from './descriptor.js';
import { Group } from './generated/validators.js';

/** A team of native users, named in bindings as `{kind: Group, name}` (issue 20). */
export const group: KindDescriptor = {
  kind: 'Group',
  plural: 'groups',
  scope: 'global',
  validate: Group,
  subject: 'group',
  members: { path: 'spec.members', kind: 'User' },
};
