import type { Metrics } from '../api/metrics.js';
import type { Store } from './store.js';

/** Store methods that do I/O and are timed. */
const TIMED = new Set(['get', 'list', 'create', 'update', 'delete', 'snapshot', 'listVersions', 'getVersion', 'revision', 'ping']);

/** The same store, with every I/O method timed into dashplane_store_operation_duration_seconds. */
export function instrumentStore(store: Store, metrics: Metrics): Store {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof prop !== 'string' || !TIMED.has(prop) || typeof value !== 'function') {
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (...args: unknown[]) => metrics.timeStore(prop, () => (value as (...a: unknown[]) => Promise<unknown>).apply(target, args));
    },
  });
}
