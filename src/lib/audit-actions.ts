/**
 * What an audit entry says happened (issue 20): the one list the server's store and query, dashctl
 * audit's `--action` and the web UI's audit filter offer. Dependency-free, so the UI imports it too.
 */
export const AUDIT_ACTIONS = [
  'create',
  'update',
  'delete',
  'login',
  'login-failed',
  'logout',
  'token-create',
  'token-use',
  'token-revoke',
  'denied',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];
