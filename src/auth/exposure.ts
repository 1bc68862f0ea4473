import { isIPv4, isIPv6 } from 'node:net';
import type { SecurityConfig } from '../kinds/generated/types.js';
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
 */
export function openInstallationWarning(security: SecurityConfig, projectKind: string, deniedNetworks: readonly string[] = []): string | undefined {
  if (!security.enable_auth || security.authentication?.disable_sign_up || security.authentication?.providers?.enable_native === false) return undefined;
  if (!grants((security.authorization?.guest_permissions ?? []) as Permission[], 'create', projectKind)) return undefined;
  if (INTERNAL_NETWORKS.every((n) => deniedNetworks.some((d) => covers(d, n)))) return undefined;
  return (
    'warning: open installation: anyone who can reach this server can sign up, create a project and a datasource, ' +
    'and read through the datasource proxy whatever this server can reach (except proxy.denied_networks). ' +
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
const INTERNAL_NETWORKS = ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '127.0.0.0/8', 'fc00::/7', '::1/128'];

/** Whether the CIDR `outer` contains the CIDR `inner` (same family; a bare address is a /32 or /128). */
function covers(outer: string, inner: string): boolean {
  const a = parseCidr(outer);
  const b = parseCidr(inner);
  if (!a || !b || a.bits !== b.bits || a.prefix > b.prefix) return false;
  return a.prefix === 0 || a.value >> BigInt(a.bits - a.prefix) === b.value >> BigInt(b.bits - a.prefix);
}

function parseCidr(text: string): { value: bigint; bits: number; prefix: number } | undefined {
  const [addr, len] = text.trim().split('/');
  const v4 = isIPv4(addr);
  if (!v4 && !isIPv6(addr)) return undefined;
  const bits = v4 ? 32 : 128;
  const prefix = len === undefined ? bits : Number(len);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return undefined;
  return { value: v4 ? ipv4Value(addr) : ipv6Value(addr), bits, prefix };
}

function ipv4Value(addr: string): bigint {
  return addr.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function ipv6Value(addr: string): bigint {
  const [head, tail] = addr.split('::');
  const groups = (s: string | undefined) => (s ? s.split(':') : []);
  const h = groups(head);
  const t = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return all.reduce((acc, g) => (acc << 16n) | BigInt(Number.parseInt(g || '0', 16)), 0n);
}
