import { PasswordHasher } from '../access/passwords.js';
import { invalid, type ErrorDetail } from '../errors.js';
import { getPath, setPathIfParentExists } from '../lib/object-path.js';
import { isObj } from '../lib/is-obj.js';
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
        throw invalid([{ path: 'spec.password', message: 'is the older form of spec.nativeProvider.password, which is given too with another value; send one of them' }], 'User');
      }
      if (native.password === undefined) native.password = spec.password;
      spec.nativeProvider = native;
      delete spec.password;
    },
    /** External identities are recorded by dashplane at sign-in, never set by a client (INPUT-17). */
    validate(obj, _ctx, call): ErrorDetail[] {
      if (call.principal.internal) return [];
      const before = JSON.stringify(call.current ? getPath(call.current, OAUTH) : undefined);
      if (JSON.stringify(getPath(obj, OAUTH)) === before) return [];
      return [{ path: OAUTH, message: 'is recorded by dashplane when the user signs in through an external provider; remove it from the request' }];
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
