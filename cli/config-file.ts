import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CliError } from './errors.js';
import { isObj } from '../src/lib/is-obj.js';

/** One server as dashctl remembers it (a kubectl context): its address, default project and tokens. */
export interface ContextSettings {
  /** The server, e.g. http://127.0.0.1:8080 (no trailing slash). */
  url?: string | undefined;
  /** Default project for project-scoped kinds. */
  project?: string | undefined;
  accessToken?: string | undefined;
  refreshToken?: string | undefined;
  /** When the access token expires (RFC 3339), as the server said. */
  expiry?: string | undefined;
}

/** The configuration file: named contexts and the one commands use unless `--context` says otherwise. */
export interface CliConfigFile {
  currentContext?: string;
  contexts: Record<string, ContextSettings>;
}

/** Keys `dashctl config set` may change (in the current context). */
export const SETTABLE_KEYS = ['url', 'project'] as const;

/** The context a single-server file of older dashctl versions becomes. */
export const DEFAULT_CONTEXT = 'default';

const LEGACY_KEYS: readonly (keyof ContextSettings)[] = ['url', 'project', 'accessToken', 'refreshToken', 'expiry'];

/** `$DASHCTL_CONFIG` (relative to `cwd`), else `~/.dashctl/config.json` (`$HOME` of `env`). */
export function configPath(env: Readonly<Record<string, string | undefined>>, cwd: string): string {
  return env.DASHCTL_CONFIG ? resolve(cwd, env.DASHCTL_CONFIG) : join(env.HOME || homedir(), '.dashctl', 'config.json');
}

/**
 * The saved configuration (no contexts when there is no file yet). A file written by an older
 * dashctl (one server: `{url, project, accessToken, ...}`) is read as the context "default",
 * which is then current; the next save writes the new form.
 */
export function loadConfig(file: string): CliConfigFile {
  if (!existsSync(file)) return { contexts: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file}: not valid JSON (${(e as Error).message}); fix or delete it and log in again`);
  }
  if (!isObj(parsed)) throw new CliError(`${file}: must hold a JSON object`);
  if (parsed.contexts === undefined) return migrate(parsed);
  if (!isObj(parsed.contexts) || !Object.values(parsed.contexts).every(isObj))
    throw new CliError(`${file}: "contexts" must map context names to objects; fix or delete the file and log in again`);
  const current = typeof parsed.currentContext === 'string' && parsed.currentContext ? parsed.currentContext : undefined;
  return { ...(current ? { currentContext: current } : {}), contexts: parsed.contexts as Record<string, ContextSettings> };
}

function migrate(legacy: Record<string, unknown>): CliConfigFile {
  const settings = Object.fromEntries(
    LEGACY_KEYS.filter((k) => typeof legacy[k] === 'string').map((k) => [k, legacy[k]]),
  ) as ContextSettings;
  if (!Object.keys(settings).length) return { contexts: {} };
  return { currentContext: DEFAULT_CONTEXT, contexts: { [DEFAULT_CONTEXT]: settings } };
}

/**
 * Writes the configuration with mode 0600 (it holds tokens), atomically: a crash leaves either
 * the old or the new file, never half of one.
 */
export function saveConfig(config: CliConfigFile, file: string): void {
  const dir = dirname(file);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const contexts = Object.fromEntries(
    Object.entries(config.contexts).map(([name, c]) => [
      name,
      Object.fromEntries(Object.entries(c).filter(([, v]) => v !== undefined && v !== '')),
    ]),
  );
  const clean = { ...(config.currentContext ? { currentContext: config.currentContext } : {}), contexts };
  writeFileSync(tmp, `${JSON.stringify(clean, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Normalises a server address typed by a user: a scheme is required, the trailing slash dropped. */
export function normaliseUrl(raw: string): string {
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new CliError(`"${raw}" is not a server address; use e.g. http://127.0.0.1:8080`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new CliError(`"${raw}": only http and https servers are supported`);
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
}

/** A context name for a server nobody named: its host and port (`127.0.0.1:8080`), made unique among `taken`. */
export function contextNameFor(url: string, taken: readonly string[]): string {
  const base = new URL(url).host || DEFAULT_CONTEXT;
  let name = base;
  for (let i = 2; taken.includes(name); i++) name = `${base}-${i}`;
  return name;
}
