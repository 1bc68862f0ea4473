import type { Principal } from '../access/authorizer.js';
import type { PasswordHasher } from '../access/passwords.js';
import type { ResolvedConfig } from '../config.js';
import type { ErrorDetail } from '../errors.js';
import type { PluginRegistry } from '../plugins/registry.js';
import type { ValidateFunction } from '../lib/schema-errors.js';
import type { Envelope, ObjectStore } from '../storage/store.js';

export type Scope = 'global' | 'project';

/** What semantic validation hooks may consult. */
export interface HookContext {
  store: Pick<ObjectStore, 'get' | 'list'>;
  plugins: PluginRegistry;
  /** Every registered kind with its scope. */
  kinds: ReadonlyMap<string, Scope>;
  /** The kind whose objects are the projects (the registry's projectKind). */
  projectKind: string;
  passwords: PasswordHasher;
  /** The server configuration (read-only). */
  config: Readonly<ResolvedConfig>;
}

/** The request a hook runs for. */
export interface HookCall {
  principal: Principal;
  /** The stored object on update; undefined on create. */
  current?: Envelope;
  /** A create allowed only because sign-up is open (a self-service sign-up), not by a permission. */
  signUp?: boolean;
}

/**
 * Optional per-kind behaviour; only present hooks are called. `T` is the kind's generated type
 * (src/kinds/generated/types.ts): what an object of the kind is once its schema passed.
 */
export interface KindHooks<T extends Envelope = Envelope> {
  /** Rewrites older forms in place, before schema validation (e.g. User spec.password): `body` is unchecked. */
  normalize?(body: Record<string, unknown>, ctx?: HookContext): void;
  /**
   * Semantic checks; every problem with its path. It also runs when the schema refused the object
   * (so that every problem is reported at once), its result then ignored if it throws: read
   * optional parts defensively.
   */
  validate?(obj: T, ctx: HookContext, call: HookCall): ErrorDetail[] | Promise<ErrorDetail[]>;
  /** Last step before the write, after every validation (e.g. hash a password). */
  beforeWrite?(obj: T, ctx: HookContext, call: HookCall): Promise<void>;
  /**
   * For a sensitive field that `beforeWrite` stores in another form (a password hash): whether
   * `sent` is the value `stored` holds. An unchanged value then keeps its stored form, and a write
   * changing nothing else is no write at all.
   */
  matchesStored?(path: string, sent: string, stored: unknown, ctx: HookContext): Promise<boolean>;
  /** Objects created in the same atomic write as a new object (e.g. a project's default roles). */
  companions?(obj: T, call: HookCall): Envelope[];
}

/** A list query parameter that filters on a field of the object. */
export interface ListFilter {
  /** Query parameter name, e.g. `kind`. */
  param: string;
  /** Dotted path inside the object, e.g. `spec.plugin.kind`. */
  path: string;
  /** How to read the query value; a missing boolean field counts as false. */
  type: 'string' | 'boolean';
}

/** "At most one object per scope with `flag` true for each value of `groupBy`" (e.g. default datasources). */
export interface SingleFlagRule {
  flag: string;
  groupBy: string;
  /** Used in the error message, e.g. "default datasource". */
  label: string;
}

/**
 * Everything generic code knows about a kind. Adding a kind = a schema, `npm run gen`,
 * one of these, and one line in `kinds/index.ts`. `T` is the kind's generated type, which its
 * hooks and functions receive; generic code sees every descriptor as `KindDescriptor` (of Envelope).
 */
export interface KindDescriptor<T extends Envelope = Envelope> {
  kind: string;
  /** Lower-case plural path segment. */
  plural: string;
  /** Lower-case abbreviations dashctl accepts for the kind, as kubectl has them (`ds`, `gds`). */
  shortNames?: readonly string[];
  scope: Scope;
  /** Schema validator of the whole envelope (generated). */
  validate: ValidateFunction;
  hooks?: KindHooks<T>;
  /** Dotted paths of sensitive fields: stored, never returned (masked as "<secret>"). */
  sensitive?: readonly string[];
  /**
   * Sensitive fields that must be set on create and that an update leaving them out (absent or
   * "") keeps, as Perses does for a User's password; `null` in an update removes the value.
   */
  keptWhenOmitted?: readonly string[];
  /**
   * Dotted path of the external identities a principal signs in with (User spec.oauthProviders):
   * a principal created with some needs none of its `keptWhenOmitted` credentials.
   */
  externalIdentities?: string;
  /** Dotted paths of fields stored encrypted (AES-256-GCM), decrypted only for use (the proxy). */
  encrypted?: readonly string[];
  /** Fields that cannot change after creation. */
  immutable?: readonly string[];
  /** Extra list filters on top of name/project. */
  listFilters?: readonly ListFilter[];
  /** Uniqueness of a boolean flag inside the scope. */
  singleFlag?: SingleFlagRule;
  /** Objects of this kind are the projects that project-scoped objects live in (Project). */
  isProjectScope?: boolean;
  /** The kind of the Secrets this kind's datasources may name (same scope): Secret or GlobalSecret. */
  secretKind?: string;
  /** Names of the secrets the object's datasource proxy blocks use (saving needs `read` on them). */
  secretRefs?(obj: T): string[];
  /** The datasource spec named `name` held by the object (itself for a Datasource, a local one for a Dashboard). */
  datasourceSpec?(obj: T, name?: string): unknown;
  /** RBAC: objects of this kind are roles (permission lists) or bindings (role -> subjects). */
  authz?: 'role' | 'binding';
  /** Objects of this kind are the users that sign in (User): they may read and update themselves. */
  isPrincipal?: boolean;
  /**
   * Objects of this kind may be named as binding subjects (`{kind, name}`): `principal` (who signs
   * in or holds API tokens: users, service accounts) or `group` (a named set of principals). A
   * deleted principal leaves every binding and group; a subject of a project-scoped kind names an
   * object of the binding's own project.
   */
  subject?: 'principal' | 'group';
  /** For a group kind: the dotted path of its member names, and the principal kind they name. */
  members?: { path: string; kind: string };
  /**
   * Objects of this kind list objects of another kind in their project (a Folder lists
   * dashboards): a permission naming such an object (`folders`) covers it and what it lists, and
   * adding an existing object to it needs `update` on that object.
   */
  contents?: { kind: string; names(obj: T): string[] };
  /** API tokens can be created for objects of this kind (personal access tokens, service account tokens). */
  tokenOwner?: boolean;
  /** The name a principal of this kind acts under (history, audit); absent: its metadata.name. */
  principalName?(project: string | undefined, name: string): string;
  /**
   * Dotted paths of a principal's credentials (a password): sessions are bound to their stored
   * values, so a change ends every session of the principal except the one that made it.
   */
  credentials?: readonly string[];
  /** Anonymous callers may create objects of this kind (sign-up) unless this boolean config key is true. */
  anonymousCreateUnless?: string;
  /** Previous versions are kept (issue 5). */
  history?: boolean;
  /** The UI's search (GET /api/v1/search) looks into objects of this kind. */
  searchable?: boolean;
  /** Dotted path of a boolean server configuration key that turns the kind's routes on (e.g. `ephemeral_dashboard.enable`). */
  enabledBy?: string;
  /**
   * Boolean server configuration keys that turn the kind's routes (and its proxy) off: off when
   * every key of one of the groups is true (`[['variable.global.disable'], ['datasource.global.disable']]`).
   */
  disabledBy?: readonly (readonly string[])[];
  /**
   * Parts of the spec a boolean server configuration key forbids: when `key` is true, `field`
   * (a dotted path) must be absent or empty, else `message` (e.g. datasource.disable_local).
   */
  forbiddenBy?: readonly { key: string; field: string; message: string }[];
  /** Dotted path of a duration after which the object expires (counted from updatedAt). */
  ttlPath?: string;
  /**
   * Objects of this kind ask for datasources in their spec (a dashboard's queries and variables):
   * the kinds of the datasources of its project and of the global scope. A request that none of
   * them (nor the object's own `spec.datasources`) answers is a warning (src/resources/datasource-warnings.ts).
   */
  usesDatasources?: { project: string; global: string };
}

/**
 * The spec of a stored object of the kind whose generated type is `T` (`specOf<User>(obj)`): every
 * stored object passed its kind's schema when it was written. The one place generic envelopes
 * become typed; reads of untyped bodies (before validation) use isObj instead.
 */
export function specOf<T extends { spec?: unknown }>(obj: Pick<Envelope, 'spec'>): T['spec'] {
  return obj.spec as T['spec'];
}
