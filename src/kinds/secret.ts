import { resolve, sep } from 'node:path';
import type { ErrorDetail } from '../errors.js';
import { getPath } from '../lib/object-path.js';
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

/** Fields naming a file to read the value from. */
const FILE_FIELDS = PAIRS.map(([block, , file]) => [block, file] as const);

/** `*File` fields may only name files under security.secret_files_dir (checked without touching the file). */
function fileProblems(spec: Obj, filesDir: unknown): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const [block, field] of FILE_FIELDS) {
    const value = (spec[block] as Obj | undefined)?.[field];
    if (value === undefined || value === '') continue;
    const path = `spec.${block}.${field}`;
    if (typeof filesDir !== 'string' || filesDir === '') {
      out.push({ path, message: 'file references are refused because security.secret_files_dir is not set; put the value itself in the secret, or ask the administrator to set that directory' });
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

const hooks: KindHooks = {
  validate: (obj, ctx) => [...secretProblems(obj.spec as Obj), ...fileProblems(obj.spec as Obj, getPath(ctx.config, 'security.secret_files_dir'))],
};
/** Masked in every response, as Perses does (its PublicSecret hides the TLS material too). */
const sensitive = ['spec.basicAuth.password', 'spec.authorization.credentials', 'spec.oauth.clientSecret', 'spec.tlsConfig.ca', 'spec.tlsConfig.cert', 'spec.tlsConfig.key'];

export const secret: KindDescriptor = {
  kind: 'Secret',
  plural: 'secrets',
  scope: 'project',
  validate: Secret,
  hooks,
  sensitive,
  encrypted: sensitive,
};

export const globalSecret: KindDescriptor = {
  kind: 'GlobalSecret',
  plural: 'globalsecrets',
  scope: 'global',
  validate: GlobalSecret,
  hooks,
  sensitive,
  encrypted: sensitive,
};
