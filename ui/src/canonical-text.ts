import { stringify } from 'yaml';
import { canonical, withoutServerFields } from '../../src/lib/canonical';
import type { Resource } from './api';

/**
 * An object as the lines a history diff compares: dashctl's canonical form (keys in a fixed
 * order, no server-owned metadata) as YAML the way dashctl prints it, so key order never shows
 * as a change and the UI and `dashctl diff` agree.
 */
export function canonicalLines(r: Resource): string[] {
  return stringify(canonical(withoutServerFields(r as unknown as Record<string, unknown>)), {
    lineWidth: 0,
    aliasDuplicateObjects: false,
  }).split('\n');
}
