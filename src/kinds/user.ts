import { PasswordHasher } from '../access/passwords.js';
import type { ErrorDetail } from '../errors.js';
import { getPath, setPathIfParentExists } from '../lib/object-path.js';
import type { KindDescriptor } from './descriptor.js';
import { User } from './generated/validators.js';

type Obj = Record<string, unknown>;
const PASSWORD = 'spec.nativeProvider.password';
const OAUTH = 'spec.oauthProviders';

export const user: KindDescriptor = {
  kind: 'User',
  plural: 'users',
  scope: 'global',
  validate: User,
  sensitive: [PASSWORD],
  isPrincipal: true,
  subject: 'principal',
  tokenOwner: true,
  credentials: [PASSWORD],
  anonymousCreateUnless: 'security.authentication.disable_sign_up',
  hooks: {
    /** Older form: `spec.password` becomes `spec.nativeProvider.password`. */
    normalize(body) {
      const spec = body.spec as Obj | undefined;
      if (!spec || typeof spec !== 'object' || spec.password === undefined) return;
      const native = (spec.nativeProvider ?? {}) as Obj;
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
