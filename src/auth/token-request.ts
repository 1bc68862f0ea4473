import { invalid, type ErrorDetail } from '../errors.js';
import { parseDuration } from '../lib/duration.js';
import type { NarrowedPermission } from '../access/authorizer.js';

/** What `POST .../tokens` asks for, checked. */
export interface TokenRequest {
  name: string;
  expiresAt: Date;
  permissions?: NarrowedPermission[];
}

const ACTIONS = new Set(['create', 'read', 'update', 'delete', '*']);
const NAME = /^[a-zA-Z0-9_.-]{1,75}$/;
const MAX_PERMISSIONS = 100;
const MAX_LIST = 100;

/**
 * `{"name", "ttl" | "expiresAt", "permissions"?}`: a name (1 to 100 printable characters), an
 * expiry (a duration from now, or an RFC 3339 time) no later than `maxTtlMs` from now, and
 * optionally the permissions the token is narrowed to (`{actions, scopes, projects?}`, scopes
 * among `knownScopes`). Every problem is reported at once with its path.
 */
export function parseTokenRequest(
  body: unknown,
  o: { now: number; maxTtlMs: number; maxTtl: string; knownScopes: ReadonlySet<string> },
): TokenRequest {
  const problems: ErrorDetail[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw invalid(
      [{ path: '', message: 'send a JSON object: {"name": "...", "ttl": "30d", "permissions": [...]} (permissions optional)' }],
      'token request',
    );
  }
  const b = body as Record<string, unknown>;
  for (const k of Object.keys(b))
    if (!['name', 'ttl', 'expiresAt', 'permissions'].includes(k))
      problems.push({ path: k, message: 'is not a token field; use name, ttl or expiresAt, and permissions' });
  const name = b.name;
  if (typeof name !== 'string' || name.trim() === '' || name.length > 100 || /[\u0000-\u001f\u007f]/.test(name)) {
    problems.push({
      path: 'name',
      message: 'is required: a label of 1 to 100 printable characters saying what the token is for (e.g. "ci-deploy")',
    });
  }
  const expiresAt = expiry(b, o, problems);
  const permissions = b.permissions === undefined ? undefined : narrowed(b.permissions, o.knownScopes, problems);
  if (problems.length) throw invalid(problems, 'token request');
  return { name: name as string, expiresAt: expiresAt!, ...(permissions ? { permissions } : {}) };
}

function expiry(
  b: Record<string, unknown>,
  o: { now: number; maxTtlMs: number; maxTtl: string },
  problems: ErrorDetail[],
): Date | undefined {
  const cap = `at most security.authentication.max_token_ttl (${o.maxTtl}) from now`;
  if ((b.ttl === undefined) === (b.expiresAt === undefined)) {
    problems.push({
      path: 'ttl',
      message: `give the token an expiry: either ttl (a duration such as "30d") or expiresAt (an RFC 3339 time), ${cap}`,
    });
    return undefined;
  }
  let at: number | undefined;
  if (b.ttl !== undefined) {
    const ms = typeof b.ttl === 'string' ? parseDuration(b.ttl) : undefined;
    if (ms === undefined || ms <= 0) problems.push({ path: 'ttl', message: 'must be a positive duration such as "30d", "12h" or "90m"' });
    else if (ms > o.maxTtlMs) problems.push({ path: 'ttl', message: `must be ${cap}` });
    else at = o.now + ms;
    return at === undefined ? undefined : new Date(at);
  }
  const text = b.expiresAt;
  const parsed =
    typeof text === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : NaN;
  if (Number.isNaN(parsed)) problems.push({ path: 'expiresAt', message: 'must be an RFC 3339 time such as "2030-01-31T00:00:00Z"' });
  else if (parsed <= o.now) problems.push({ path: 'expiresAt', message: 'must be in the future' });
  else if (parsed > o.now + o.maxTtlMs) problems.push({ path: 'expiresAt', message: `must be ${cap}` });
  else at = parsed;
  return at === undefined ? undefined : new Date(at);
}

function narrowed(value: unknown, known: ReadonlySet<string>, problems: ErrorDetail[]): NarrowedPermission[] | undefined {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_PERMISSIONS) {
    problems.push({
      path: 'permissions',
      message: `must be a list of 1 to ${MAX_PERMISSIONS} permissions {"actions": [...], "scopes": [...], "projects"?: [...]}; leave it out for all of the owner's permissions`,
    });
    return undefined;
  }
  const out: NarrowedPermission[] = [];
  value.forEach((p, i) => {
    const at = `permissions[${i}]`;
    if (p === null || typeof p !== 'object' || Array.isArray(p))
      return void problems.push({ path: at, message: 'must be an object {"actions", "scopes", "projects"?}' });
    const q = p as Record<string, unknown>;
    for (const k of Object.keys(q))
      if (!['actions', 'scopes', 'projects'].includes(k))
        problems.push({ path: `${at}.${k}`, message: 'is not a permission field; use actions, scopes and projects' });
    const actions = strings(q.actions, `${at}.actions`, (a) => ACTIONS.has(a), 'one of create, read, update, delete or "*"', problems);
    const scopes = strings(
      q.scopes,
      `${at}.scopes`,
      (s) => s === '*' || known.has(s),
      `a kind (${[...known].join(', ')}) or "*"`,
      problems,
    );
    const projects =
      q.projects === undefined
        ? undefined
        : strings(q.projects, `${at}.projects`, (s) => NAME.test(s) && s !== '.' && s !== '..', 'a project name', problems);
    if (actions && scopes) out.push({ actions, scopes, ...(projects ? { projects } : {}) });
  });
  return out;
}

function strings(v: unknown, path: string, ok: (s: string) => boolean, what: string, problems: ErrorDetail[]): string[] | undefined {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_LIST) {
    problems.push({ path, message: `must be a list of 1 to ${MAX_LIST} values, each ${what}` });
    return undefined;
  }
  const bad = v.findIndex((x) => typeof x !== 'string' || !ok(x));
  if (bad >= 0) {
    problems.push({ path: `${path}[${bad}]`, message: `must be ${what}` });
    return undefined;
  }
  if (new Set(v).size !== v.length) {
    problems.push({ path, message: 'must not repeat a value' });
    return undefined;
  }
  return v as string[];
}
