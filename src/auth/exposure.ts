import type { SecurityConfig } from '../kinds/generated/types.js';
import { covers, parseCidr } from '../lib/ip-address.js';
import type { Permission } from './grants.js';
import { grants } from './rbac.js';

/**
 * The start-up warning of an open installation: with authentication on, open sign-up and the
 * default guest permission to create projects, anyone who reaches the server can sign up, create a
 * project (becoming its owner), add a datasource pointing anywhere and read the answers through
 * the proxy: whatever the server can reach, not only what it was meant to serve. Undefined when
 * sign-up is closed, strangers cannot create projects, or `deniedNetworks` (proxy.denied_networks)
 * holds every private network (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, IPv6 fc00::/7) and
 * the loopback ones (127.0.0.0/8, ::1/128): the internal networks are closed to the proxy then.
 * `deniedNetworks` is every network the proxy refuses (loopback included when it is denied).
 */
export function openInstallationWarning(
  security: SecurityConfig,
  projectKind: string,
  deniedNetworks: readonly string[] = [],
): string | undefined {
  if (!security.enable_auth || security.authentication?.disable_sign_up || security.authentication?.providers?.enable_native === false)
    return undefined;
  if (!grants((security.authorization?.guest_permissions ?? []) as Permission[], 'create', projectKind)) return undefined;
  const denied = deniedNetworks.map(parseCidr);
  if (INTERNAL_NETWORKS.every((n) => denied.some((d) => d && covers(d, n)))) return undefined;
  return (
    'warning: open installation: anyone who can reach this server can sign up, create a project and a datasource, ' +
    'and read through the datasource proxy whatever this server can reach (except the networks the proxy denies, logged at start). ' +
    'Set security.authentication.disable_sign_up: true, remove "create" on Project from security.authorization.guest_permissions, ' +
    'or list your internal networks in proxy.denied_networks'
  );
}

/**
 * The start-up warning of native sign-up open beside identity providers: dashplane cannot know the
 * name a provider user will get before it signs in or an administrator creates it, so a stranger
 * may sign up under it first, and a role later granted to that name goes to the stranger
 * (GRANT-02, docs/auth.md). Undefined with auth off, sign-up closed, native login off or no provider.
 */
export function signUpBesideProvidersWarning(security: SecurityConfig): string | undefined {
  const authn = security.authentication;
  if (!security.enable_auth || authn?.disable_sign_up || authn?.providers?.enable_native === false) return undefined;
  if (!authn?.providers?.oidc?.length && !authn?.providers?.oauth?.length) return undefined;
  return (
    'warning: native sign-up is open beside identity providers: anyone may sign up under the name a provider user will get before that user first signs in. ' +
    'Create provider users before granting them roles (POST /api/v1/users with spec.oauthProviders [{"issuer": ...}]), or set security.authentication.disable_sign_up: true'
  );
}

/** The networks an installation's own services usually live on. */
const INTERNAL_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', 'fc00::/7', '::1/128'].map((n) => parseCidr(n)!);
