import type { Store } from './store.js';

/** Where the timings go (the server's metrics: dashplane_store_operation_duration_seconds). */
export interface StoreTimer {
  timeStore<T>(operation: string, fn: () => Promise<T>): Promise<T>;
}

/** Store methods that do I/O and are timed. */
const TIMED = new Set([
  'get',
  'getText',
  'list',
  'listText',
  'create',
  'update',
  'delete',
  'snapshot',
  'listVersions',
  'getVersion',
  'listDeleted',
  'createdRevision',
  'revision',
  'ping',
]);

/** The same store, with every I/O method timed into dashplane_store_operation_duration_seconds. */
export function instrumentStore(store: Store, metrics: StoreTimer): Store {
  // the wrappers are made once per method, not on every call
  const methods = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop, receiver) {
      const known = methods.get(prop);
      if (known) return known;
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const fn = value as (...a: unknown[]) => Promise<unknown>;
      const wrapped =
        typeof prop === 'string' && TIMED.has(prop)
          ? (...args: unknown[]) => metrics.timeStore(prop, () => fn.apply(target, args))
          : fn.bind(target);
      methods.set(prop, wrapped);
      return wrapped;
    },
  });
}
