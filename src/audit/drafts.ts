import type { Principal } from '../access/authorizer.js';
import type { AuditDraft } from '../storage/audit-types.js';

/** The fields of an entry that depend on what happened (the rest comes from the principal and the clock). */
export type AuditFields = Omit<AuditDraft, 'time' | 'user' | 'requestId' | 'source'> & { user?: string };

/**
 * An audit entry for what `p` does now: its name (`anonymous` without credentials), the request
 * it came with (id, client address) and the API token it used, if any.
 */
export function auditDraft(p: Principal, fields: AuditFields, now: Date = new Date()): AuditDraft {
  const { user, ...rest } = fields;
  return {
    time: now.toISOString(),
    user: user ?? (p.anonymous ? 'anonymous' : p.name),
    ...rest,
    ...(p.origin ? { requestId: p.origin.requestId, source: p.origin.address } : {}),
    ...(p.token && rest.token === undefined ? { token: p.token.id } : {}),
  };
}
