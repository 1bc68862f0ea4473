import type { SecurityConfig } from '../kinds/generated/types.js';
import type { Permission } from './grants.js';
import { grants } from './rbac.js';

/**
 * The start-up warning of an open installation: with authentication on, open sign-up and the
 * default guest permission to create projects, anyone who reaches the server can sign up, create a
 * project (becoming its owner), add a datasource pointing anywhere and read the answers through
 * the proxy: whatever the server can reach, not only what it was meant to serve. Undefined when
 * sign-up is closed or strangers cannot create projects.
 */
export function openInstallationWarning(security: SecurityConfig, projectKind: string): string | undefined {
  if (!security.enable_auth || security.authentication?.disable_sign_up || security.authentication?.providers?.enable_native === false) return undefined;
  if (!grants((security.authorization?.guest_permissions ?? []) as Permission[], 'create', projectKind)) return undefined;
  return (
    'warning: open installation: anyone who can reach this server can sign up, create a project and a datasource, ' +
    'and read through the datasource proxy whatever this server can reach (except proxy.denied_networks). ' +
    'Set security.authentication.disable_sign_up: true, remove "create" on Project from security.authorization.guest_permissions, ' +
    'or list your internal networks in proxy.denied_networks'
  );
}
