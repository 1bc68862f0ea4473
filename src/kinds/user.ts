import { PasswordHasher } from '../access/passwords.js';
import { invalid, type ErrorDetail } from '../errors.js';
import { getPath, setPathIfParentExists } from '../lib/object-path.js';
import { isObj } from '../lib/is-obj.js';
import { configuredIssuers } from '../lib/issuers.js';
import type { KindDescriptor } from './descriptor.js';
import type { User as UserObject } from './generated/types.js';
import { User } from './generated/validators.js';

const PASSWORD = 'spec.nativeProvider.password';
const OAUTH = 'spec.oauthProviders';

export const user: KindDescriptor<UserObject> = {
  kind: 'User',
  plural: 'users',
  scope: 'global',
  validate: User,
  sensitive: [PASSWORD],
  keptWhenOmitted: [PASSWORD],
  externalIdentities: OAUTH,
  isPrincipal: true,
  subject: 'principal',
  tokenOwner: true,
  credentials: [PASSWORD],
  anonymousCreateUnless: 'security.authentication.disable_sign_up',
  hooks: {
    /** Older form: `spec.password` becomes `spec.nativeProvider.password`. */
    normalize(body) {
      const spec = body.spec;
      // a nativeProvider that is not an object is left for the schema to report
      if (!isObj(spec) || spec.password === undefined || (spec.nativeProvider !== undefined && !isObj(spec.nativeProvider))) return;
      const native = isObj(spec.nativeProvider) ? spec.nativeProvider : {};
      if (native.password !== undefined && native.password !== spec.password) {
        throw invalid(
          [
            {
              path: 'spec.password',
              message: 'is the older form of spec.nativeProvider.password, which is given too with another value; send one of them',
            },
          ],
          'User',
        );
      }
      if (native.password === undefined) native.password = spec.password;
      spec.nativeProvider = native;
      delete spec.password;
    },
    /**
     * External identities are recorded by dashplane at sign-in, never set by a client (INPUT-17),
     * except that an administrator creates a user for an identity provider ahead of its first
     * sign-in (GRANT-02): `[{"issuer": <a configured provider's issuer>}]`, without a password.
     */
    validate(obj, ctx, call): ErrorDetail[] {
      if (call.principal.internal) return [];
      const before = JSON.stringify(call.current ? getPath(call.current, OAUTH) : undefined);
      if (JSON.stringify(getPath(obj, OAUTH)) === before) return [];
      if (!call.current && !call.signUp) return awaitedProblems(obj, configuredIssuers(ctx.config.security));
      return [
        {
          path: OAUTH,
          message: 'is recorded by dashplane when the user signs in through an external provider; remove it from the request',
        },
      ];
    },
    /** The same password sent again (not its hash) is checked against the stored hash, never hashed again. */
    async matchesStored(_path, sent, stored, ctx) {
      return PasswordHasher.isHash(stored) && ctx.passwords.verify(stored as string, sent);
    },
    /** A new or changed password is stored as a scrypt hash, never as sent. */
    async beforeWrite(obj, ctx, call) {
      const password = getPath(obj, PASSWORD);
      if (typeof password !== 'string' || password === '') return;
      if (call.current && password === getPath(call.current, PASSWORD)) return;
      if (call.principal.internal && PasswordHasher.isHash(password)) return;
      setPathIfParentExists(obj, PASSWORD, await ctx.passwords.hash(password));
    },
  },
};

/**
 * What is wrong with the identities an administrator gives a new user: each must be
 * `{"issuer": ...}` alone, naming a configured provider (its first sign-in through that provider
 * under this name records the rest), and such a user has no password.
 */
function awaitedProblems(obj: UserObject, issuers: readonly string[]): ErrorDetail[] {
  const known = issuers.length
    ? `one of ${issuers.map((i) => JSON.stringify(i)).join(', ')}`
    : 'the issuer of a configured identity provider (none is configured)';
  const problems: ErrorDetail[] = (obj.spec.oauthProviders ?? []).flatMap((b, i) => {
    const path = `${OAUTH}[${i}]`;
    const extra = Object.keys(b).filter((k) => k !== 'issuer');
    if (extra.length)
      return [
        {
          path: `${path}.${extra[0]}`,
          message: `is recorded by dashplane at the user's first sign-in; give only "issuer" to create a user for an identity provider`,
        },
      ];
    if (!issuers.includes(b.issuer ?? '')) return [{ path: `${path}.issuer`, message: `must be ${known}` }];
    return [];
  });
  if (getPath(obj, PASSWORD) !== undefined)
    problems.push({
      path: PASSWORD,
      message: `a user of an identity provider (${OAUTH}) signs in there and has no password; remove one of them`,
    });
  return problems;
}
