import type { Principal } from '../access/authorizer.js';
import { badRequest } from '../errors.js';
import type { Writer } from '../storage/store.js';

/**
 * Field managers: every write records who made it (the principal) and through what (the manager:
 * the client or component). Clients name themselves; dashplane's own writes use the names below.
 */
export const MANAGER = {
  /** A client that names none (curl, a Perses client). */
  api: 'api',
  /** A version made the latest again (POST .../versions/N/restore). */
  restore: 'restore',
  /** The initial administrator, its role and binding. */
  bootstrap: 'bootstrap',
  /** A user's record written at an external sign-in. */
  signIn: 'sign-in',
  /** Other writes dashplane makes on its own (a deleted user leaving the bindings). */
  dashplane: 'dashplane',
} as const;

/** What a manager name may be: a short token, so it fits a header, a table column and a log line. */
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Checks a manager name a client sent; `source` says where (a header or query parameter). */
export function checkManager(value: string, source: string): string {
  if (!TOKEN.test(value)) {
    throw badRequest(
      `${source} must name the client making the write as a short token (1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, e.g. "dashctl"), not ${JSON.stringify(value.slice(0, 80))}`,
    );
  }
  return value;
}

/** The writer of a write: the principal's name ("anonymous" with auth off) and the manager. */
export function writerOf(p: Principal, manager: string | undefined): Writer {
  return { by: p.anonymous ? 'anonymous' : p.name, manager: manager ?? MANAGER.api };
}
