import type { Store } from '../../src/storage/store.js';

/**
 * The real `store`, with its method `name` called through `call` (which gets the original,
 * bound to the store, and the arguments): to count calls or run something inside them.
 */
export function spyOn<K extends keyof Store>(
  store: Store,
  name: K,
  call: (
    original: Store[K],
    ...args: Parameters<Extract<Store[K], (...a: never[]) => unknown>>
  ) => ReturnType<Extract<Store[K], (...a: never[]) => unknown>>,
): Store {
  return new Proxy(store, {
    get(target, prop) {
      const v = Reflect.get(target, prop) as unknown;
      const bound = typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
      if (prop !== name) return bound;
      return (...args: unknown[]) => (call as (o: unknown, ...a: unknown[]) => unknown)(bound, ...args);
    },
  });
}
