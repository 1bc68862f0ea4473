import { expect } from 'chai';
import type { TestServer } from './server.js';
import { startTestServer } from './server.js';

/** Environment for a server with authentication on, a bootstrap admin, and fast password hashing. */
export const AUTH_ENV: Record<string, string> = {
  DASHPLANE_SECURITY_ENABLE_AUTH: 'true',
  DASHPLANE_ADMIN_USER: 'admin',
  DASHPLANE_ADMIN_PASSWORD: 'admin-password',
  DASHPLANE_SECURITY_AUTHENTICATION_PASSWORD_HASH_COST: '10',
};

/**
 * The opt-in of an operator whose datasources run on the same host (proxy.allow_loopback): with
 * authentication on the proxy refuses loopback addresses otherwise. For servers whose upstreams
 * (Prometheus, the tests' fake servers) listen on 127.0.0.1.
 */
export const LOOPBACK_UPSTREAMS: Record<string, string> = { DASHPLANE_PROXY_ALLOW_LOOPBACK: 'true' };

export function startAuthServer(env: Record<string, string> = {}): Promise<TestServer> {
  return startTestServer({ env: { ...AUTH_ENV, ...env } });
}

export interface Tokens {
  access_token: string;
  refresh_token: string;
  token_type: string;
  expiry: string;
  expires_in: number;
}

/** Authorization header for a token. */
export const bearer = (t: Tokens | string) => ({ authorization: `Bearer ${typeof t === 'string' ? t : t.access_token}` });

/** Signs up (open sign-up) and returns the created user as the server answered. */
export async function signUp(s: Pick<TestServer, 'api'>, name: string, password = `${name}-password`): Promise<void> {
  const r = await s.api('POST', '/api/v1/users', { kind: 'User', metadata: { name }, spec: { nativeProvider: { password } } });
  expect(r.status, r.text).to.equal(200);
}

/** Native login; asserts 200 and returns the token body. */
export async function login(s: Pick<TestServer, 'api'>, name: string, password = `${name}-password`): Promise<Tokens> {
  const r = await s.api('POST', '/api/auth/providers/native/login', { login: name, password });
  expect(r.status, r.text).to.equal(200);
  return r.body as Tokens;
}

/** The admin created at start by AUTH_ENV. */
export const loginAdmin = (s: Pick<TestServer, 'api'>) => login(s, 'admin', 'admin-password');
