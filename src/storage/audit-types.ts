/**
 * Audit entries as the store keeps them (issue 20): who did what, through what, when, to which
 * object, from where. Entries never hold an object's content, so no secret value reaches them.
 */

import type { AuditAction } from '../lib/audit-actions.js';

/** What happened (src/lib: dashctl and the web UI offer the same list). */
export { AUDIT_ACTIONS, type AuditAction } from '../lib/audit-actions.js';

/** One audit entry; `id` is store-wide, increasing in commit order, without gaps. */
export interface AuditEntry {
  id: number;
  /** RFC 3339, UTC. */
  time: string;
  action: AuditAction;
  /** The principal: a user, `sa:<project>/<name>` or `sa:<name>` (service accounts), `anonymous`, or `dashplane` itself. */
  user: string;
  /** The field manager of a write (dashctl, web-ui, api, restore, sign-in...). */
  manager?: string;
  kind?: string;
  project?: string;
  name?: string;
  versionBefore?: number;
  versionAfter?: number;
  /** The request's X-Request-Id. */
  requestId?: string;
  /** The client's address. */
  source?: string;
  /** The API token a request was made with, or the token created, used or revoked. */
  token?: string;
  /** The provider of a login (`native`, `oidc/<slug>`, `oauth/<slug>`). */
  provider?: string;
  /** The refused action of a denial. */
  deniedAction?: string;
  /** Why a login failed or an action was denied (the server's message, never a secret). */
  reason?: string;
  /**
   * How many refusals (denials, failed logins) this entry stands for, when it counts the repeats of
   * one within a window (`audit.coalesce_window`); an entry without it stands for one. It then
   * holds only the fields they all had alike (`user` `*` for several).
   */
  count?: number;
  /** The time of the first and of the last refusal it counts (`time` is when it was written). */
  firstTime?: string;
  lastTime?: string;
}

/** An entry before the store numbers it. */
export type AuditDraft = Omit<AuditEntry, 'id'>;

/** A page of the audit log. Without `afterId`: newest first (from `beforeId`); with it: oldest first. */
export interface AuditQuery {
  user?: string;
  kind?: string;
  project?: string;
  action?: string;
  /** time >= since (RFC 3339). */
  since?: string;
  /** time < until (RFC 3339). */
  until?: string;
  beforeId?: number;
  afterId?: number;
  limit: number;
}

/** A page and, when the store stopped scanning before filling it, where to go on from. */
export interface AuditPage {
  entries: AuditEntry[];
  /** More entries may match beyond this id (continue with beforeId, or afterId when ascending). */
  next?: number;
}

/** What `Store.onAudit` listeners hear: the last id committed; the entries too when this process wrote them. */
export interface AuditNotice {
  lastId: number;
  entries?: readonly AuditEntry[];
}

/** Whether an entry matches a query's filters (ids and limit aside). */
export function auditMatches(e: AuditDraft, q: AuditQuery): boolean {
  return (
    (q.user === undefined || e.user === q.user) &&
    (q.kind === undefined || e.kind === q.kind) &&
    (q.project === undefined || e.project === q.project) &&
    (q.action === undefined || e.action === q.action) &&
    (q.since === undefined || Date.parse(e.time) >= Date.parse(q.since)) &&
    (q.until === undefined || Date.parse(e.time) < Date.parse(q.until))
  );
}
