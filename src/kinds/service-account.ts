import type { KindDescriptor } from './descriptor.js';
import { GlobalServiceAccount, ServiceAccount } from './generated/validators.js';

/**
 * Machine identities (issue 20): bindings name them as subjects; API tokens created for them
 * act as them. They get no guest permissions: only what their bindings grant.
 */
export const serviceAccount: KindDescriptor = {
  kind: 'ServiceAccount',
  plural: 'serviceaccounts',
  scope: 'project',
  validate: ServiceAccount,
  subject: 'principal',
  tokenOwner: true,
  principalName: (project, name) => `sa:${project}/${name}`,
};

export const globalServiceAccount: KindDescriptor = {
  kind: 'GlobalServiceAccount',
  plural: 'globalserviceaccounts',
  scope: 'global',
  validate: GlobalServiceAccount,
  subject: 'principal',
  tokenOwner: true,
  principalName: (_project, name) => `sa:${name}`,
};
