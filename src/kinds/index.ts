import { AUDIT_KIND } from './audit-event.js';
import { dashboard, ephemeralDashboard } from './dashboard.js';
import { datasource, globalDatasource } from './datasource.js';
import { folder } from './folder.js';
import { group } from './group.js';
import { playlist } from './playlist.js';
import { project } from './project.js';
import { KindRegistry } from './registry.js';
import { globalRole, role } from './role.js';
import { globalRoleBinding, roleBinding } from './role-binding.js';
import { globalSecret, secret } from './secret.js';
import { globalServiceAccount, serviceAccount } from './service-account.js';
import { user } from './user.js';
import { globalVariable, variable } from './variable.js';

/** Every kind dashplane serves (docs/api.md §1). Adding a kind = one line here. */
export function buildKindRegistry(): KindRegistry {
  return new KindRegistry(
    [
      project,
      dashboard,
      ephemeralDashboard,
      folder,
      playlist,
      variable,
      datasource,
      secret,
      role,
      roleBinding,
      globalVariable,
      globalDatasource,
      globalSecret,
      globalRole,
      globalRoleBinding,
      user,
      group,
      serviceAccount,
      globalServiceAccount,
    ],
    { [AUDIT_KIND]: 'project' },
  );
}
