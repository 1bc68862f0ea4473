import { forbidden } from '../errors.js';

/** Who is calling. With auth off every caller is the anonymous principal. */
export interface Principal {
  name: string;
  anonymous: boolean;
}

export type Action = 'create' | 'read' | 'update' | 'delete';

/** Permission checks; implementations throw `ApiError` Forbidden. */
export interface Authorizer {
  /** Throws Forbidden when `principal` may not do `action` on `kind` (in `project` for project kinds). */
  authorize(principal: Principal, action: Action, kind: string, project?: string): Promise<void>;
  /** The projects in which `principal` may read `kind`: '*' for all. */
  readableProjects(principal: Principal, kind: string): Promise<'*' | ReadonlySet<string>>;
}

export const ANONYMOUS: Principal = Object.freeze({ name: 'anonymous', anonymous: true });

/** With `security.enable_auth` off: everything is allowed. */
export const allowAll: Authorizer = Object.freeze({
  authorize: async () => undefined,
  readableProjects: async () => '*' as const,
});

/** `security.readonly`: reads go to `inner`, every write is refused. */
export function readOnly(inner: Authorizer): Authorizer {
  return {
    authorize: async (principal, action, kind, project) => {
      if (action !== 'read') throw forbidden(`this server is read-only (security.readonly: true); ${action} of ${kind} is not allowed`);
      return inner.authorize(principal, action, kind, project);
    },
    readableProjects: (principal, kind) => inner.readableProjects(principal, kind),
  };
}
