import { resolve, sep } from 'node:path';
import type { ErrorDetail } from '../errors.js';
import { getPath, joinPath } from '../lib/object-path.js';
import { urlProblems } from '../proxy/http-proxy.js';
import type { KindDescriptor, KindHooks } from './descriptor.js';
import type { GlobalSecret as GlobalSecretObject, Secret as SecretObject, SecretSpec } from './generated/types.js';
import { GlobalSecret, Secret } from './generated/validators.js';

/** Whether the spec sets `block.field` (to something other than ""). */
const has = (spec: SecretSpec, block: string, field: string) => {
  const v = getPath(spec, `${block}.${field}`);
  return v !== undefined && v !== '';
};

/** Pairs where at most one may be set: [object, value field, file field]. */
const PAIRS: [string, string, string][] = [
  ['basicAuth', 'password', 'passwordFile'],
  ['authorization', 'credentials', 'credentialsFile'],
  ['oauth', 'clientSecret', 'clientSecretFile'],
  ['tlsConfig', 'ca', 'caFile'],
  ['tlsConfig', 'cert', 'certFile'],
  ['tlsConfig', 'key', 'keyFile'],
];
/** Ways of authenticating; at most one per secret. */
const AUTH_BLOCKS = ['basicAuth', 'authorization', 'oauth'];

/** Fields naming a file to read the value from. */
const FILE_FIELDS = PAIRS.map(([block, , file]) => [block, file] as const);

/** `*File` fields may only name files under security.secret_files_dir (checked without touching the file). */
function fileProblems(spec: SecretSpec, filesDir: string | undefined): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [block, field] of FILE_FIELDS) {
    if (!has(spec, block, field)) continue;
    const value = getPath(spec, `${block}.${field}`);
    const path = `spec.${block}.${field}`;
    if (typeof filesDir !== 'string' || filesDir === '') {
      out.push({
        path,
        message:
          'file references are refused because security.secret_files_dir is not set; put the value itself in the secret, or ask the administrator to set that directory',
      });
      continue;
    }
    const root = resolve(filesDir);
    if (typeof value !== 'string' || !resolve(root, value).startsWith(root + sep)) {
      out.push({ path, message: 'must name a file inside security.secret_files_dir (a relative path is read from there)' });
    }
  }
  return out;
}

/** Shape rules of a secret spec (docs/api.md §9). Messages name fields, never values. */
function secretProblems(spec: SecretSpec): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [block, value, file] of PAIRS) {
    if (has(spec, block, value) && has(spec, block, file)) {
      out.push({ path: `spec.${block}.${file}`, message: `set either spec.${block}.${value} or spec.${block}.${file}, not both` });
    }
  }
  const auth = AUTH_BLOCKS.filter((b) => getPath(spec, b) !== undefined);
  if (auth.length > 1) {
    out.push({ path: `spec.${auth[1]}`, message: `${auth.map((b) => `spec.${b}`).join(' and ')} are mutually exclusive; keep one` });
  }
  if (spec.oauth) out.push(...oauthProblems(spec.oauth));
  return out;
}

/** Form parameters the proxy sets itself in a token request (Go's oauth2 refuses them too); `grant_type` may be overridden. */
const OWN_PARAMS = ['client_id', 'client_secret'];

/** The token endpoint is one the proxy can call, and endpointParams leave the client's own parameters alone. */
function oauthProblems(oauth: NonNullable<SecretSpec['oauth']>): ErrorDetail[] {
  const out = urlProblems(oauth.tokenURL, 'spec.oauth.tokenURL', {
    example: 'https://auth.example.com/oauth2/token',
    credentials: 'put them in clientID and clientSecret',
  });
  for (const k of Object.keys(oauth.endpointParams ?? {})) {
    const path = joinPath('spec.oauth.endpointParams', k);
    if (OWN_PARAMS.includes(k))
      out.push({ path, message: `is sent by the proxy itself; set spec.oauth.${k === 'client_id' ? 'clientID' : 'clientSecret'} instead` });
    else if (k === 'scope' && oauth.scopes?.length)
      out.push({ path, message: 'conflicts with spec.oauth.scopes; list the scopes there only' });
  }
  return out;
}

const hooks: KindHooks<SecretObject | GlobalSecretObject> = {
  validate: (obj, ctx) => [...secretProblems(obj.spec), ...fileProblems(obj.spec, ctx.config.security.secret_files_dir)],
};
/** Masked in every response, as Perses does (its PublicSecret hides the TLS material too). */
const sensitive = [
  'spec.basicAuth.password',
  'spec.authorization.credentials',
  'spec.oauth.clientSecret',
  'spec.tlsConfig.ca',
  'spec.tlsConfig.cert',
  'spec.tlsConfig.key',
];

export const secret: KindDescriptor<SecretObject> = {
  kind: 'Secret',
  plural: 'secrets',
  scope: 'project',
  validate: Secret,
  hooks,
  sensitive,
  encrypted: sensitive,
};

export const globalSecret: KindDescriptor<GlobalSecretObject> = {
  kind: 'GlobalSecret',
  plural: 'globalsecrets',
  shortNames: ['gsecret'],
  scope: 'global',
  validate: GlobalSecret,
  hooks,
  sensitive,
  encrypted: sensitive,
};
