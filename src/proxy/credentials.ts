import { createHash } from 'node:crypto';
import { readFileSync, realpathSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { ApiError } from '../errors.js';
import type { SecretSpec } from '../kinds/generated/types.js';
import type { OAuthClient } from './oauth-tokens.js';
import type { UpstreamTls } from './upstream.js';

/**
 * What the proxy sends with a datasource's requests, from its Secret: a fixed Authorization
 * header (basicAuth, authorization), or an OAuth client whose token is fetched at request time;
 * the basicAuth user and password themselves (a database login); TLS material; `files` when
 * *File fields were read (then never kept: a file may change).
 */
export interface Credentials {
  authorization?: string;
  basic?: { username: string; password: string };
  oauth?: OAuthClient;
  tls?: UpstreamTls;
  files?: true;
  /**
   * Which credentials these are, for the query cache's keys: the Secret's identity and a digest of
   * everything sent from it (a Secret deleted and created again starts at the same version, and a
   * *File field may change under one version).
   */
  identity: string;
}

/** The Secret a datasource names: its decrypted spec, its identity (kind/project/name) and stored version. */
export interface SecretSource {
  spec: SecretSpec;
  id: string;
  version: number;
}

/**
 * The credentials of a decrypted Secret spec. *File fields are read from `filesDir`
 * (security.secret_files_dir) only.
 */
export function credentialsOf(secret: SecretSource, filesDir: string | undefined): Credentials {
  const { spec } = secret;
  let files = false;
  const file = (path: string | undefined) => {
    if (!path) return undefined;
    files = true;
    return readSecretFile(filesDir, path);
  };
  let authorization: string | undefined;
  let basic: Credentials['basic'];
  let oauth: OAuthClient | undefined;
  if (spec.basicAuth) {
    basic = { username: spec.basicAuth.username ?? '', password: spec.basicAuth.password ?? file(spec.basicAuth.passwordFile) ?? '' };
    authorization = `Basic ${Buffer.from(`${basic.username}:${basic.password}`).toString('base64')}`;
  } else if (spec.authorization) {
    authorization = `${spec.authorization.type || 'Bearer'} ${spec.authorization.credentials ?? file(spec.authorization.credentialsFile) ?? ''}`;
  } else if (spec.oauth) {
    const o = spec.oauth;
    oauth = {
      id: secret.id,
      version: secret.version,
      clientID: o.clientID,
      clientSecret: o.clientSecret ?? file(o.clientSecretFile) ?? '',
      tokenURL: o.tokenURL,
      scopes: o.scopes ?? [],
      endpointParams: o.endpointParams ?? {},
      authStyle: o.authStyle ?? 0,
    };
  }
  const t = spec.tlsConfig;
  const tls: UpstreamTls | undefined = t
    ? {
        ...((t.ca ?? file(t.caFile)) ? { ca: t.ca ?? file(t.caFile) } : {}),
        ...((t.cert ?? file(t.certFile)) ? { cert: t.cert ?? file(t.certFile) } : {}),
        ...((t.key ?? file(t.keyFile)) ? { key: t.key ?? file(t.keyFile) } : {}),
        ...(t.serverName ? { serverName: t.serverName } : {}),
        ...(t.insecureSkipVerify ? { insecureSkipVerify: true } : {}),
      }
    : undefined;
  const identity = `${secret.id}#${createHash('sha256')
    .update(JSON.stringify([authorization, oauth, tls]))
    .digest('base64url')}`;
  return {
    ...(authorization ? { authorization } : {}),
    ...(basic ? { basic } : {}),
    ...(oauth ? { oauth } : {}),
    ...(tls ? { tls } : {}),
    ...(files ? { files: true as const } : {}),
    identity,
  };
}

/** A *File value, read only when its real path is inside security.secret_files_dir. */
function readSecretFile(dir: string | undefined, path: string): string {
  const refused = new ApiError(
    'BadGateway',
    "a file named by the datasource's secret cannot be used; see the server configuration (security.secret_files_dir)",
  );
  if (!dir) throw refused;
  try {
    const root = realpathSync(dir);
    const real = realpathSync(resolve(root, path));
    if (!real.startsWith(root + sep)) throw refused;
    return readFileSync(real, 'utf8').trim();
  } catch {
    throw refused;
  }
}
