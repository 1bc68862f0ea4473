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
  /** Other writes dashplane makes on its own (a deleted user leaving the bindings, the reaper's deletes). */
  dashplane: 'dashplane',
  /** API token records (created, used, revoked). */
  apiTokens: 'api-tokens',
  /** Objects written from provisioning folders and Git sources (docs/provisioning.md). */
  provisioning: 'provisioning',
  /** What history shows for a write whose manager was never recorded (older stores, copies). */
  unknown: 'unknown',
} as const;

/**
 * The managers only dashplane writes as (every one but `api`, which is what a client naming none
 * gets anyway), compared without case and without ".", "_" and "-": a client may not pass its
 * writes off as a restore, a sign-in or the server's own (INPUT-20).
 */
const RESERVED: ReadonlySet<string> = new Set(
  Object.values(MANAGER)
    .filter((m) => m !== MANAGER.api)
    .map(folded),
);

function folded(name: string): string {
  return name.toLowerCase().replace(/[._-]/g, '');
}

/** What a manager name may be: a short token, so it fits a header, a table column and a log line. */
const TOKEN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Checks a manager name a client sent; `source` says where (a header or query parameter). */
export function checkManager(value: string, source: string): string {
  if (!TOKEN.test(value)) {
    throw badRequest(
      `${source} must name the client making the write as a short token (1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, e.g. "dashctl"), not ${JSON.stringify(value.slice(0, 80))}`,
    );
  }
  if (RESERVED.has(folded(value))) {
    throw badRequest(
      `${source} names "${value}", a field manager only dashplane itself writes as (${[...Object.values(MANAGER)].filter((m) => m !== MANAGER.api).join(', ')}); name your own client instead (e.g. "my-script"), or send none`,
    );
  }
  return value;
}

/** The writer of a write: the principal's name ("anonymous" with auth off) and the manager. */
export function writerOf(p: Principal, manager: string | undefined): Writer {
  return { by: p.anonymous ? 'anonymous' : p.name, manager: manager ?? MANAGER.api };
}
