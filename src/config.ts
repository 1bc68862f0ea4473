import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { yamlModule } from './lib/yaml-module.js';
import { ServerConfig as validateConfig } from './kinds/generated/validators.js';
import type { ResolvedServerConfig, ServerConfig } from './kinds/generated/types.js';
import { schemaErrors } from './lib/schema-errors.js';
import { SCHEMAS_DIR } from './paths.js';
import { parseDuration } from './lib/duration.js';
import { isObj } from './lib/is-obj.js';
import { parseCidr } from './lib/ip-address.js';
import { parseListen } from './lib/listen.js';
import { ignoredKeyWarnings, persesRefusals, translatePerses } from './config-perses.js';

export type { ServerConfig };

/**
 * The configuration as dashplane uses it: every key with a default holds its value (the type says
 * which may still be absent). Made only here, by `loadConfig` or `resolveConfig`.
 */
export type ResolvedConfig = ResolvedServerConfig;

/** Where configuration comes from; later sources win: file, then environment, then flags. */
export interface ConfigSources {
  file?: string | undefined;
  listen?: string | undefined;
  env?: Record<string, string | undefined>;
}

/**
 * Environment variables with names of their own (not `DASHPLANE_` + a key path), with what they
 * do; docs/configuration.md is generated from this list.
 */
export const NAMED_ENV_VARS: Readonly<Record<string, string>> = Object.freeze({
  DASHPLANE_CONFIG: 'The configuration file, when `--config` is not given.',
  DASHPLANE_ENCRYPTION_KEY:
    'The master key (64 hex characters, base64 of 32 bytes, or a string of exactly 32 bytes as Perses writes it): sets `security.encryption_key`.',
  DASHPLANE_ADMIN_USER:
    'With `DASHPLANE_ADMIN_PASSWORD`: the first administrator, created at start when no user of that name exists (sets `security.bootstrap_admin`).',
  DASHPLANE_ADMIN_PASSWORD: "The first administrator's password (needs `DASHPLANE_ADMIN_USER`).",
  DASHPLANE_DATABASE_POSTGRES_PASSWORD: 'The PostgreSQL password, when neither the URL nor `database.postgres.password_file` holds it.',
  DASHPLANE_COMMIT: 'The commit reported by `/api/v1/health` and `dashplane_build_info` (default: read from .git).',
});

/** Environment variables read directly by other parts of dashplane rather than mapped to a key. */
const ENV_NOT_KEYS = new Set(Object.keys(NAMED_ENV_VARS));

/** The environment variable of a configuration key: `security.enable_auth` -> `DASHPLANE_SECURITY_ENABLE_AUTH`. */
export function envVarOf(path: readonly string[]): string {
  return ENV_PREFIX + path.join('_').toUpperCase();
}
const ENV_PREFIX = 'DASHPLANE_';
/**
 * Perses' environment variables (`PERSES_` + the key path, list items by index:
 * `PERSES_PROVISIONING_FOLDERS_0`) set the same keys; `DASHPLANE_` ones win.
 */
const PERSES_ENV_PREFIX = 'PERSES_';

interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  default?: unknown;
  writeOnly?: boolean;
  items?: JsonSchema;
  description?: string;
  deprecated?: boolean;
}

const SCHEMA = JSON.parse(readFileSync(join(SCHEMAS_DIR, 'config.json'), 'utf8')) as JsonSchema;

/** A configuration problem a user can fix; the message names the key and its source. */
export class ConfigError extends Error {}

/**
 * Reads the configuration once: YAML file, DASHPLANE_* environment overrides, --listen; checks it
 * against schemas/config.json, fills defaults and freezes it. `warnings` lists ignored variables
 * and settings that have no effect.
 */
export function loadConfig(src: ConfigSources = {}): { config: Readonly<ResolvedConfig>; warnings: string[] } {
  const warnings: string[] = [];
  let raw: Record<string, unknown> = {};
  if (src.file) {
    let text: string;
    try {
      text = readFileSync(src.file, 'utf8');
    } catch (e) {
      throw new ConfigError(`cannot read the configuration file ${src.file}: ${(e as Error).message}`);
    }
    try {
      raw = (yamlModule().parse(text, { schema: 'core', maxAliasCount: 100 }) ?? {}) as Record<string, unknown>;
    } catch (e) {
      throw new ConfigError(`the configuration file ${src.file} is not valid YAML: ${(e as Error).message}`);
    }
    if (typeof raw !== 'object' || Array.isArray(raw))
      throw new ConfigError(`the configuration file ${src.file} must hold a YAML mapping of keys`);
  }
  const env = Object.entries(src.env ?? {});
  for (const prefix of [PERSES_ENV_PREFIX, ENV_PREFIX]) {
    for (const [name, value] of env) {
      if (!name.startsWith(prefix) || value === undefined || ENV_NOT_KEYS.has(name)) continue;
      const path = resolveEnvKey(name.slice(prefix.length).split('_'), SCHEMA);
      if (!path) {
        warnings.push(`ignoring environment variable ${name}: it names no configuration key`);
        continue;
      }
      setDeep(raw, path.keys, coerce(value, path.schema, name));
    }
  }
  applyShortcutEnv(raw, src.env ?? {});
  if (src.listen !== undefined) raw.listen = src.listen;
  const config = resolveConfig(raw);
  const providers = config.security.authentication.providers;
  const configured = [...(providers.oidc ?? []), ...(providers.oauth ?? [])].length;
  if (configured && !config.security.enable_auth) {
    warnings.push(
      `security.authentication.providers names ${configured} identity provider(s), but security.enable_auth is false: nobody signs in, so they are not used`,
    );
  }
  warnings.push(...ignoredKeyWarnings(raw, SCHEMA));
  if (raw.ephemeral_dashboards_cleanup_interval !== undefined) {
    warnings.push(
      'ephemeral_dashboards_cleanup_interval is an older Perses key: write ephemeral_dashboard.cleanup_interval (it is read as that when that is not set)',
    );
  }
  if (config.api_prefix && !config.frontend.disable) {
    warnings.push(
      `api_prefix is "${config.api_prefix}": the API and the proxy are served under it, and so are the web UI's files, but the UI calls the API at /api and does not work there yet: use dashctl or percli at <server>${config.api_prefix}, or set frontend.disable`,
    );
  }
  return { config, warnings };
}

/**
 * A configuration as written (the file's keys, already merged) checked against schemas/config.json,
 * with its defaults filled in, frozen: what every part of dashplane is given. `{}` is the default
 * configuration. Throws ConfigError naming every problem.
 */
export function resolveConfig(written: Readonly<ServerConfig> = {}): Readonly<ResolvedConfig> {
  const raw = structuredClone(written) as Record<string, unknown>;
  dropEmptySections(raw, SCHEMA);
  const translated: string[] = [];
  translatePerses(raw, translated);
  applyDefaults(raw, SCHEMA);
  const problems = [...schemaErrors(validateConfig, raw).map((p) => `  - ${p.path}: ${p.message}`), ...translated];
  if (problems.length === 0) problems.push(...persesRefusals(raw));
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
  // checked against the schema and every default filled in: what ResolvedConfig describes
  const config = raw as unknown as ResolvedConfig;
  checkListen(config);
  checkTimeouts(config);
  checkNetworks(config);
  checkProxyCache(config);
  checkCors(config);
  checkProvisioning(config);
  return deepFreeze(config);
}

/** Environment variables with names of their own (documented in the README) rather than a key path. */
function applyShortcutEnv(raw: Record<string, unknown>, env: Record<string, string | undefined>): void {
  if (env.DASHPLANE_ENCRYPTION_KEY) setDeep(raw, ['security', 'encryption_key'], env.DASHPLANE_ENCRYPTION_KEY);
  if (env.DASHPLANE_ADMIN_USER) {
    setDeep(raw, ['security', 'bootstrap_admin'], {
      name: env.DASHPLANE_ADMIN_USER,
      ...(env.DASHPLANE_ADMIN_PASSWORD ? { password: env.DASHPLANE_ADMIN_PASSWORD } : {}),
    });
  } else if (env.DASHPLANE_ADMIN_PASSWORD) {
    throw new ConfigError('DASHPLANE_ADMIN_PASSWORD is set without DASHPLANE_ADMIN_USER; set both to create the first administrator');
  }
}

/** `listen` is an address to listen on: checked here, before the server takes its data directory. */
function checkListen(config: ResolvedConfig): void {
  try {
    parseListen(config.listen);
  } catch (e) {
    throw new ConfigError(`invalid configuration: ${(e as Error).message} (--listen, DASHPLANE_LISTEN or listen in the file)`);
  }
}

/** Node refuses a headers timeout longer than the request timeout; say so in configuration terms. */
function checkTimeouts(config: ResolvedConfig): void {
  const headers = parseDuration(config.http.headers_timeout);
  const request = parseDuration(config.http.request_timeout);
  if (headers !== undefined && request !== undefined && request > 0 && headers > request) {
    throw new ConfigError(
      `invalid configuration: http.headers_timeout (${config.http.headers_timeout}) must not be longer than http.request_timeout (${config.http.request_timeout})`,
    );
  }
}

/** Every proxy.denied_networks entry is an address or a CIDR network in its usual form (the schema only checks the characters). */
function checkNetworks(config: ResolvedConfig): void {
  const bad = config.proxy.denied_networks.map((n, i) => [n, i] as const).filter(([n]) => !parseCidr(n));
  if (bad.length) {
    const list = bad.map(
      ([n, i]) =>
        `  - proxy.denied_networks[${i}]: "${n}" is not an address or CIDR network; write it like 10.0.0.0/8, 192.168.1.5 or fd00::/8`,
    );
    throw new ConfigError(`invalid configuration:\n${list.join('\n')}`);
  }
}

/** The largest shared answer fits in the cache; a datasource is listed once. */
function checkProxyCache(config: ResolvedConfig): void {
  const c = config.proxy.cache;
  const problems: string[] = [];
  if (c.max_answer_mb > c.max_size_mb)
    problems.push(
      `  - proxy.cache.max_answer_mb (${c.max_answer_mb}) must not be more than proxy.cache.max_size_mb (${c.max_size_mb}): an answer larger than the cache could never be kept`,
    );
  c.datasources.forEach((e, i) => {
    const first = c.datasources.findIndex((o) => o.datasource === e.datasource);
    if (first < i)
      problems.push(
        `  - proxy.cache.datasources[${i}].datasource: "${e.datasource}" is already listed at proxy.cache.datasources[${first}]; the first entry that matches wins, so this one would never apply`,
      );
  });
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}

/**
 * Credentials are never allowed to every origin: browsers refuse `*` with credentials, and
 * reflecting any origin instead would let every web site act as the signed-in user.
 */
function checkCors(config: ResolvedConfig): void {
  const cors = config.security.cors;
  if (cors.allow_credentials && cors.allow_origins.includes('*')) {
    throw new ConfigError(
      'invalid configuration: security.cors.allow_credentials is true while security.cors.allow_origins allows "*" (its default): list the origins trusted with credentials, e.g. allow_origins: ["https://dashboards.example.com"]',
    );
  }
}

/**
 * Provisioning intervals are more than 0 (a pass would follow a pass without a pause), and a Git
 * URL carries no credentials: they would be kept in the clone's .git/config, shown by
 * `GET /api/config` and written in logs.
 */
function checkProvisioning(config: ResolvedConfig): void {
  const p = config.provisioning;
  const problems: string[] = [];
  const positive = (value: string | undefined, key: string) => {
    if (value !== undefined && parseDuration(value) === 0)
      problems.push(`  - ${key}: "${value}" would read without a pause; give a duration of more than 0, such as "1m"`);
  };
  positive(p.interval, 'provisioning.interval');
  p.git.forEach((g, i) => {
    positive(g.interval, `provisioning.git[${i}].interval`);
    // a user name alone in an HTTP(S) URL is usually an access token
    if (/^https?:\/\/[^/@]+@/i.test(g.url) || /^[a-z][a-z0-9+.-]*:\/\/[^/@]*:[^/@]*@/i.test(g.url)) {
      problems.push(
        `  - provisioning.git[${i}].url: holds credentials; remove them from the URL and put the password or token in a file named by provisioning.git[${i}].password_file (the user name goes in provisioning.git[${i}].username)`,
      );
    }
  });
  if (problems.length) throw new ConfigError(`invalid configuration:\n${problems.join('\n')}`);
}

/** The configuration as `GET /api/config` shows it: every writeOnly (secret) value replaced. */
export function publicConfig(config: Readonly<ResolvedConfig>): unknown {
  return maskWriteOnly(config, SCHEMA);
}

function maskWriteOnly(value: unknown, schema: JsonSchema | undefined): unknown {
  if (schema?.writeOnly && value !== undefined && value !== '') return '<secret>';
  if (Array.isArray(value)) return value.map((v) => maskWriteOnly(v, schema?.items));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, maskWriteOnly(v, schema?.properties?.[k])]));
}

/**
 * DASHPLANE_SECURITY_ENABLE_AUTH -> security.enable_auth, guided by the schema's property names;
 * a number after a list's name is an item (PERSES_PROVISIONING_FOLDERS_0 -> provisioning.folders[0]).
 */
function resolveEnvKey(tokens: string[], schema: JsonSchema): { keys: (string | number)[]; schema: JsonSchema } | undefined {
  if (tokens.length === 0) return { keys: [], schema };
  if (schema.type === 'array' && schema.items && /^\d+$/.test(tokens[0]) && Number(tokens[0]) < 1000) {
    const rest = resolveEnvKey(tokens.slice(1), schema.items);
    return rest && { keys: [Number(tokens[0]), ...rest.keys], schema: rest.schema };
  }
  for (let j = tokens.length; j >= 1; j--) {
    const key = tokens.slice(0, j).join('_').toLowerCase();
    const sub = schema.properties?.[key];
    if (!sub) continue;
    const rest = resolveEnvKey(tokens.slice(j), sub);
    if (rest) return { keys: [key, ...rest.keys], schema: rest.schema };
  }
  return undefined;
}

function coerce(value: string, schema: JsonSchema, name: string): unknown {
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'boolean':
      if (/^(true|1|yes)$/i.test(value)) return true;
      if (/^(false|0|no)$/i.test(value)) return false;
      throw new ConfigError(`${name} must be true or false, not ${JSON.stringify(value)}`);
    case 'integer':
    case 'number': {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n)) throw new ConfigError(`${name} must be a number, not ${JSON.stringify(value)}`);
      return n;
    }
    case 'array':
    case 'object':
      try {
        return JSON.parse(value);
      } catch {
        throw new ConfigError(`${name} must be JSON (a ${type}), e.g. ${type === 'array' ? '["a","b"]' : '{"k":"v"}'}`);
      }
    default:
      return value;
  }
}

function setDeep(obj: Record<string, unknown>, keys: readonly (string | number)[], value: unknown): void {
  let cur = obj;
  keys.slice(0, -1).forEach((k, i) => {
    const container =
      typeof keys[i + 1] === 'number' ? Array.isArray(cur[k]) : cur[k] !== null && typeof cur[k] === 'object' && !Array.isArray(cur[k]);
    if (!container) cur[k] = typeof keys[i + 1] === 'number' ? [] : {};
    cur = cur[k] as Record<string, unknown>;
  });
  cur[keys[keys.length - 1]] = value;
}

/** A YAML section left empty (`plugin:` with everything commented out) is null: treat it as absent. */
function dropEmptySections(obj: Record<string, unknown>, schema: JsonSchema): void {
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    if (obj[k] === null && sub.properties) delete obj[k];
    const v = obj[k];
    if (isObj(v)) dropEmptySections(v, sub);
  }
}

/** Fills `default`s of the schema (objects that default to {} get their children's defaults). */
function applyDefaults(obj: Record<string, unknown>, schema: JsonSchema): void {
  for (const [k, sub] of Object.entries(schema.properties ?? {})) {
    if (obj[k] === undefined && sub.default !== undefined) obj[k] = structuredClone(sub.default);
    const v = obj[k];
    if (isObj(v) && sub.properties) applyDefaults(v, sub);
  }
}

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === 'object') {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}
