import type { KindDescriptor } from './descriptor.js';

/**
 * The order in which objects of several kinds are written together (dashctl apply, provisioning):
 * Projects (0), global principals (users, global service accounts: 1), other global kinds (2),
 * project principals (service accounts: 3), other project kinds (4). An object's project exists
 * before it, and a binding or a group names principals that exist, so principals come before
 * the grants naming them. Deletions go in the reverse order.
 */
export function phaseOf(d: KindDescriptor): number {
  if (d.isProjectScope) return 0;
  const later = d.subject === 'principal' ? 0 : 1;
  return d.scope === 'global' ? 1 + later : 3 + later;
}

/** The phases in order (see phaseOf). */
export const PHASES: readonly number[] = [0, 1, 2, 3, 4];
