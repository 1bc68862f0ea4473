import { badRequest } from '../errors.js';
import { AUDIT_ACTIONS, type AuditQuery } from '../storage/audit-types.js';
import { nameParam, positiveInt, single, type Query } from './request-options.js';

/** Largest page of the audit log. */
const MAX_AUDIT_PAGE = 1000;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** The filters of `GET /api/v1/audit` (user, kind, project, action, from, to), each checked. */
export function auditFilters(q: Query): Omit<AuditQuery, 'limit' | 'beforeId' | 'afterId'> {
  const user = single(q, 'user');
  if (user !== undefined && (user === '' || user.length > 256 || /[\u0000-\u001f]/.test(user)))
    throw badRequest('query parameter "user" must be a user or service account name (1 to 256 printable characters)');
  const kind = single(q, 'kind');
  if (kind !== undefined && !/^[A-Za-z]{1,100}$/.test(kind))
    throw badRequest(`query parameter "kind" must be a kind name such as Dashboard, not ${JSON.stringify(kind.slice(0, 80))}`);
  const project = nameParam(q, 'project');
  const action = single(q, 'action');
  if (action !== undefined && !(AUDIT_ACTIONS as readonly string[]).includes(action))
    throw badRequest(`query parameter "action" must be one of ${AUDIT_ACTIONS.join(', ')}`);
  const time = (name: string) => {
    const v = single(q, name);
    if (v !== undefined && (!RFC3339.test(v) || Number.isNaN(Date.parse(v))))
      throw badRequest(`query parameter "${name}" must be an RFC 3339 time such as 2030-01-31T00:00:00Z`);
    return v === undefined ? undefined : new Date(Date.parse(v)).toISOString();
  };
  const since = time('from');
  const until = time('to');
  return {
    ...(user !== undefined ? { user } : {}),
    ...(kind ? { kind } : {}),
    ...(project !== undefined ? { project } : {}),
    ...(action ? { action } : {}),
    ...(since ? { since } : {}),
    ...(until ? { until } : {}),
  };
}

/** `limit` (default 100) and `continue` (the id the next page starts below). */
export function auditPage(q: Query): { limit: number; beforeId?: number } {
  const limit = positiveInt(q, 'limit', MAX_AUDIT_PAGE) ?? 100;
  const token = single(q, 'continue');
  if (token === undefined) return { limit };
  const id = /^[A-Za-z0-9_-]{1,24}$/.test(token) ? Number(Buffer.from(token, 'base64url').toString('utf8')) : NaN;
  if (!Number.isSafeInteger(id) || id < 1)
    throw badRequest('the "continue" token is not valid; start again from the first page without it');
  return { limit, beforeId: id };
}

export const continueToken = (id: number) => Buffer.from(String(id)).toString('base64url');
