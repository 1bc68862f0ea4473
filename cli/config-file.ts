import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { CliError } from './errors.js';

/** What `dashctl login` and `dashctl project` remember between runs. */
export interface CliConfig {
  /** The server, e.g. http://127.0.0.1:8080 (no trailing slash). */
  url?: string;
  /** Default project for project-scoped kinds. */
  project?: string;
  accessToken?: string;
  refreshToken?: string;
  /** When the access token expires (RFC 3339), as the server said. */
  expiry?: string;
}

/** Keys `dashctl config set` may change. */
export const SETTABLE_KEYS = ['url', 'project'] as const;

/** `$DASHCTL_CONFIG`, else `~/.dashctl/config.json`. */
export function configPath(): string {
  return process.env.DASHCTL_CONFIG || join(homedir(), '.dashctl', 'config.json');
}

/** The saved configuration (empty when there is no file yet). */
export function loadConfig(file = configPath()): CliConfig {
  if (!existsSync(file)) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new CliError(`${file}: not valid JSON (${(e as Error).message}); fix or delete it and log in again`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new CliError(`${file}: must hold a JSON object`);
  return parsed as CliConfig;
}

/**
 * Writes the configuration with mode 0600 (it holds tokens), atomically: a crash leaves either
 * the old or the new file, never half of one.
 */
export function saveConfig(config: CliConfig, file = configPath()): void {
  const dir = dirname(file);
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  const clean = Object.fromEntries(Object.entries(config).filter(([, v]) => v !== undefined && v !== ''));
  writeFileSync(tmp, JSON.stringify(clean, null, 2) + '\n', { mode: 0o600 });
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
