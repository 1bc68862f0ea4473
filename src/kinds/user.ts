import type { KindDescriptor } from './descriptor.js';
import { User } from './generated/validators.js';

type Obj = Record<string, unknown>;

export const user: KindDescriptor = {
  kind: 'User',
  plural: 'users',
  scope: 'global',
  validate: User,
  sensitive: ['spec.nativeProvider.password'],
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
  },
};
