import { forbidden } from '../errors.js';
import { trimRuns } from '../lib/trim-runs.js';
import { specOf, type KindDescriptor } from '../kinds/descriptor.js';
import type { OAuthProvider, User } from '../kinds/generated/types.js';
import { MANAGER } from '../resources/managers.js';
import type { ResourceService } from '../resources/service.js';
import type { Envelope, ObjectStore } from '../storage/store.js';
import { SYSTEM } from '../access/authorizer.js';

/** The field manager of the writes a sign-in makes. */
const BY_SIGN_IN = { manager: MANAGER.signIn };

/** Who a provider says signed in. */
export interface ExternalIdentity {
  /** The dashplane user name (see `loginName`). */
  login: string;
  issuer: string;
  subject: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  /** Groups the provider reports (groups_claim, as it names them), when its configuration reads them. */
  groups?: string[];
  /** The provider's refresh token (kept encrypted with the session, to read the groups again at refresh). Never stored on the user. */
  upstreamRefreshToken?: string;
  /** A provider access token presented as a Bearer token: its `exp`, in milliseconds since the epoch. */
  expiresAt?: number;
}

/** A user's binding to an external identity (spec.oauthProviders[]). */
type OAuthBinding = OAuthProvider;

/**
 * The login name rule: the provider's login claim (OIDC `preferred_username` by default, OAuth
 * `login`), else its subject, reduced to the characters a name may hold (others become "-"),
 * at most 75 characters. Never derived from the e-mail address alone.
 */
export function loginName(preferred: unknown, subject: string): string {
  const clean = (v: string) => trimRuns(v.replace(/[^a-zA-Z0-9_.-]/g, '-'), '.').slice(0, 75);
  const first = typeof preferred === 'string' ? clean(preferred) : '';
  return first || clean(subject) || 'user';
}

/**
 * A provider's subject (`sub`, or an OAuth profile's `id`) as the string a user is bound to:
 * a non-empty string, or an integer (GitHub's ids are numbers). Anything else is refused rather
 * than stringified: two users whose ids were objects would both become "[object Object]" and
 * share one account.
 */
export function subjectOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value.trim() === '' ? undefined : value;
  if (typeof value === 'number' && Number.isSafeInteger(value)) return String(value);
  return undefined;
}

/**
 * Creates or updates the User of an external login. A user is bound to the (issuer, subject)
 * that created it: a user with a native password, or bound to another provider or subject, is
 * never taken over, and accounts are never merged by e-mail. A user an administrator created for
 * this provider (`{"issuer"}` without a subject, no password) is bound to the first identity of
 * that provider signing in under its name.
 */
export async function syncUser(
  id: ExternalIdentity,
  o: { store: ObjectStore; service: ResourceService; userKind: KindDescriptor },
): Promise<Envelope> {
  const binding: OAuthBinding = {
    issuer: id.issuer,
    subject: id.subject,
    ...(id.email ? { email: id.email } : {}),
    ...(id.groups ? { groups: id.groups } : {}),
  };
  const profile = { ...(id.firstName ? { firstName: id.firstName } : {}), ...(id.lastName ? { lastName: id.lastName } : {}) };
  const existing = await o.store.get({ kind: o.userKind.kind, project: '', name: id.login });
  if (!existing) {
    return o.service.create(
      SYSTEM,
      o.userKind,
      { kind: o.userKind.kind, metadata: { name: id.login }, spec: { ...profile, oauthProviders: [binding] } },
      {},
      BY_SIGN_IN,
    );
  }
  const spec = specOf<User>(existing);
  const mine = (b: OAuthBinding) => b.issuer === id.issuer && b.subject === id.subject;
  const awaited = (b: OAuthBinding) => b.issuer === id.issuer && b.subject === undefined;
  const entries = spec.oauthProviders ?? [];
  const claims = !entries.some(mine) && entries.some(awaited);
  if (!(entries.some(mine) || claims) || spec.nativeProvider?.password) {
    throw forbidden(
      `the user name "${id.login}" already belongs to another account; dashplane never merges accounts (ask an administrator)`,
    );
  }
  // a claim binds the user to this identity alone (no other provider may claim it after), and only
  // the version read (of two identities claiming it at once, one wins)
  const bindings = claims ? [binding, ...entries.filter((b) => b.subject !== undefined)] : entries.map((b) => (mine(b) ? binding : b));
  const write = { ...BY_SIGN_IN, ...(claims ? { ifMatch: existing.metadata.version } : {}) };
  return (
    await o.service.update(
      SYSTEM,
      o.userKind,
      { ...existing, spec: { ...spec, ...profile, oauthProviders: bindings } },
      { name: id.login },
      write,
    )
  ).object;
}

/**
 * The existing user `id` signs in as: named `id.login`, bound to (issuer, subject), without a
 * native password. Undefined for anyone else; nothing is written.
 */
export async function boundUser(
  id: Pick<ExternalIdentity, 'login' | 'issuer' | 'subject'>,
  o: { store: ObjectStore; userKind: KindDescriptor },
): Promise<Envelope | undefined> {
  const existing = await o.store.get({ kind: o.userKind.kind, project: '', name: id.login });
  const spec = existing && specOf<User>(existing);
  const bound = (spec?.oauthProviders ?? []).some((b) => b.issuer === id.issuer && b.subject === id.subject);
  return existing && bound && !spec?.nativeProvider?.password ? existing : undefined;
}

/**
 * The user a provider token stands for: the existing user bound to (issuer, subject) without
 * writing anything, else a new or refused user as at login.
 */
export async function principalUser(
  id: ExternalIdentity,
  o: { store: ObjectStore; service: ResourceService; userKind: KindDescriptor },
): Promise<Envelope> {
  return (await boundUser(id, o)) ?? syncUser(id, o);
}
