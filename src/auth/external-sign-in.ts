import type { Principal } from '../access/authorizer.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { ResourceService } from '../resources/service.js';
import type { ObjectStore } from '../storage/store.js';
import type { AuthService } from './login.js';
import { OAuthError, type ExternalProvider } from './provider.js';
import type { IssuedTokens } from './tokens.js';
import { boundUser, syncUser, type ExternalIdentity } from './user-sync.js';

/** The device flow's answers until the user approves (RFC 8628 §3.5): the normal waiting, not failures. */
const WAITING: ReadonlySet<string> = new Set(['authorization_pending', 'slow_down']);
const MAX_REASON = 300;
const HIDDEN = '<hidden>';
/** OAuth parameters that carry no secret; the other values of a callback's query or a token form may. */
const HARMLESS: ReadonlySet<string> = new Set(['grant_type', 'error', 'error_description', 'error_uri', 'iss']);

export interface ExternalSignInOptions {
  auth: AuthService;
  service: ResourceService;
  store: ObjectStore;
  userKind: KindDescriptor;
}

/** What a caller presented in one sign-in attempt through a provider. */
export interface SignInAttempt {
  /** Values that an audit reason must never show: codes, states, device codes, client ids and secrets. */
  presented: readonly unknown[];
  /** Whom the attempt claims to be before the provider checked it (client credentials: the client). */
  claimed?: ExternalIdentity;
}

/**
 * A sign-in through provider `p`, audited as native logins are: `exchange` checks the attempt and
 * has the provider say who signed in; the user is then created or updated and a session opened.
 * Success records `login`. Any refusal on the way (login state, code, device code, client
 * credentials, the provider's error or absence, the account rules) records one `login-failed`
 * entry with the provider, the caller's address and the reason, then is rethrown. The device
 * flow's pending and slow_down polls record nothing.
 */
export async function externalSignIn(
  o: ExternalSignInOptions,
  p: ExternalProvider,
  caller: Principal,
  attempt: SignInAttempt,
  exchange: () => Promise<ExternalIdentity>,
): Promise<IssuedTokens> {
  const provider = `${p.kind}/${p.slug}`;
  let signedIn: { tokens: IssuedTokens; user: string };
  try {
    const identity = await exchange();
    const user = await syncUser(identity, o);
    signedIn = { tokens: await o.auth.openSession(user, p.kind, p.slug, identity.upstreamRefreshToken), user: user.metadata.name };
  } catch (e) {
    if (e instanceof OAuthError && WAITING.has(e.code)) throw e;
    // as for native logins, the attempted name only when it is an existing user (of this client)
    const user = attempt.claimed ? await boundUser(attempt.claimed, o).catch(() => undefined) : undefined;
    await o.auth.record(caller, {
      action: 'login-failed',
      user: user?.metadata.name ?? '-',
      provider,
      reason: failureReason(e, attempt.presented),
    });
    throw e;
  }
  await o.auth.record(caller, { action: 'login', user: signedIn.user, provider });
  return signedIn.tokens;
}

/** The values of a callback's query or a token form that may be secret (codes, states, device codes, client ids and secrets). */
export function presented(params: Record<string, unknown>): unknown[] {
  return Object.entries(params).flatMap(([k, v]) => (HARMLESS.has(k) ? [] : Array.isArray(v) ? v : [v]));
}

/**
 * Why a sign-in failed, as an audit entry keeps it: an OAuth error's code and description, else the
 * error's message; every presented value in it replaced by `<hidden>`, at most 300 characters.
 */
export function failureReason(e: unknown, presented: readonly unknown[]): string {
  let text =
    e instanceof OAuthError
      ? e.message && e.message !== e.code
        ? `${e.code}: ${e.message}`
        : e.code
      : e instanceof Error
        ? e.message
        : String(e);
  const values = [...new Set(presented.filter((v): v is string => typeof v === 'string' && v !== ''))].sort((a, b) => b.length - a.length);
  // one pass, longest first: a value inside a longer one, or inside the placeholder, changes nothing more
  if (values.length > 0)
    text = text.replace(new RegExp(values.map((v) => v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g'), HIDDEN);
  return text.slice(0, MAX_REASON);
}
