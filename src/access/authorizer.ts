import { forbidden } from '../errors.js';

/** Who is calling. With auth off every caller is the anonymous principal. */
export interface Principal {
  name: string;
  anonymous: boolean;
  /** The session the access token belongs to. */
  sessionId?: string;
  /** Authenticated by cookies (so cross-site request checks apply). */
  viaCookie?: boolean;
  /** dashplane itself (bootstrap, reaper): every check passes. */
  internal?: boolean;
  /** What the principal is as a binding subject; absent: the User named `name`. */
  subject?: { kind: string; name: string; project?: string };
  /** Groups an identity provider reports for the principal (groups_claim, after the prefix). */
  groups?: readonly string[];
  /** Roles granted by a provider's role_mappings: a GlobalRole (no project) or a project's Role. */
  roles?: readonly { role: string; project?: string }[];
  /** Authenticated by an API token: its id, and the permissions it is narrowed to (all when absent). */
  token?: { id: string; permissions?: readonly NarrowedPermission[] };
  /** Where the request came from (for the audit log). */
  origin?: { requestId: string; address: string };
  /**
   * When the credential that authenticated the principal expires, in milliseconds since the epoch
   * (an access token's `exp`, an API token's expiry); absent for credentials that do not expire.
   * Long-lived responses end then (credential-end.ts).
   */
  expiresAt?: number;
  /**
   * Authentication called `Store.sync()` for this request (a principal made for one request):
   * every change committed before the request, on any replica, has reached the caches, so reads
   * made for the request need no sync of their own.
   */
  synced?: boolean;
}

/** What ends an authenticated principal after it was authenticated (a logout, a revoked token, a changed password). */
export interface Revocation {
  /** Whether a change of `changed` (an object of any kind) may have ended `p` (cheap, no I/O). */
  concerns(p: Principal, changed: { kind: string; metadata: { name: string } }): boolean;
  /** Whether `p` is still authenticated, as of the store now. */
  stillValid(p: Principal): Promise<boolean>;
}

/** A permission an API token is narrowed to: actions on kinds, optionally only in some projects. */
export interface NarrowedPermission {
  actions: string[];
  scopes: string[];
  /** Only in these projects (absent: wherever the owner may). */
  projects?: string[];
}

/** dashplane acting on its own behalf. */
export const SYSTEM: Principal = Object.freeze({ name: 'dashplane', anonymous: false, internal: true });

export type Action = 'create' | 'read' | 'update' | 'delete';

/** What an action is about: a kind, the project it happens in (for a Project: itself), the object. */
export interface AuthzTarget {
  kind: string;
  project?: string;
  name?: string;
}

/**
 * Which objects of a kind a principal may read: '*' for every one in question, else a test of
 * (project, name) — the project is "" for a global kind, and a Project's own name for a Project.
 * A test may say which projects it can pass at all (`projects`): a search of thousands of
 * projects then reads only those.
 */
export type Visible = '*' | (((project: string, name: string) => boolean) & { readonly projects?: ReadonlySet<string> });

/** Permission checks; implementations throw `ApiError` Unauthorized or Forbidden. */
export interface Authorizer {
  /** Throws when `principal` may not do `action` on `target`. */
  authorize(principal: Principal, action: Action, target: AuthzTarget): Promise<void>;
  /**
   * The objects of `kind` `principal` may read. `where`: a list of one project (or "" for a global
   * kind) — Forbidden when nothing there may be read; absent: a list across projects (Forbidden
   * with `requireSome` when nothing at all may be read).
   */
  readable(principal: Principal, kind: string, where?: string, opts?: { requireSome?: boolean }): Promise<Visible>;
  /**
   * Whether `principal` creating `target` is a self-service sign-up: allowed only because anyone
   * may create that kind while sign-up is open, not by a permission of the principal's.
   */
  isSignUp(principal: Principal, target: AuthzTarget): Promise<boolean>;
}

export const ANONYMOUS: Principal = Object.freeze({ name: 'anonymous', anonymous: true });

/** With `security.enable_auth` off: everything is allowed. */
export const allowAll: Authorizer = Object.freeze({
  authorize: async () => undefined,
  readable: async () => '*' as const,
  isSignUp: async () => false,
});

/** `security.readonly`: reads go to `inner`, every write is refused. */
export function readOnly(inner: Authorizer): Authorizer {
  return {
    authorize: async (principal, action, target) => {
      if (action !== 'read' && !principal.internal)
        throw forbidden(`this server is read-only (security.readonly: true); ${action} of ${target.kind} is not allowed`);
      return inner.authorize(principal, action, target);
    },
    readable: (principal, kind, where, opts) => inner.readable(principal, kind, where, opts),
    isSignUp: (principal, target) => inner.isSignUp(principal, target),
  };
}
