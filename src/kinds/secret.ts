import type { ErrorDetail } from '../errors.js';
import type { KindDescriptor, KindHooks } from './descriptor.js';
import { GlobalSecret, Secret } from './generated/validators.js';

type Obj = Record<string, unknown>;
const has = (o: Obj | undefined, k: string) => o !== undefined && o[k] !== undefined && o[k] !== '';

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

/** Shape rules of a secret spec (API.md §9). Messages name fields, never values. */
function secretProblems(spec: Obj): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [block, value, file] of PAIRS) {
    const o = spec[block] as Obj | undefined;
    if (has(o, value) && has(o, file)) {
      out.push({ path: `spec.${block}.${file}`, message: `set either spec.${block}.${value} or spec.${block}.${file}, not both` });
    }
  }
  const auth = AUTH_BLOCKS.filter((b) => spec[b] !== undefined);
  if (auth.length > 1) {
    out.push({ path: `spec.${auth[1]}`, message: `${auth.map((b) => `spec.${b}`).join(' and ')} are mutually exclusive; keep one` });
  }
  return out;
}

const hooks: KindHooks = { validate: (obj) => secretProblems(obj.spec as Obj) };
/** Masked in every response, as Perses does (its PublicSecret hides the TLS material too). */
const sensitive = ['spec.basicAuth.password', 'spec.authorization.credentials', 'spec.oauth.clientSecret', 'spec.tlsConfig.ca', 'spec.tlsConfig.cert', 'spec.tlsConfig.key'];

export const secret: KindDescriptor = {
  kind: 'Secret',
  plural: 'secrets',
  scope: 'project',
  validate: Secret,
  hooks,
  sensitive,
};

export const globalSecret: KindDescriptor = {
  kind: 'GlobalSecret',
  plural: 'globalsecrets',
  scope: 'global',
  validate: GlobalSecret,
  hooks,
  sensitive,
};
