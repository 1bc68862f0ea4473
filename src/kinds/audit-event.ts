/**
 * The audit log is read through `GET /api/v1/audit`, not stored as objects of a kind; its
 * permission scope is `AuditEvent`: `read` on it globally shows every entry, in a project's Role
 * the entries about that project.
 */
export const AUDIT_KIND = 'AuditEvent';
