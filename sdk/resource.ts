import { KIND_SCOPES, type Resources } from './generated/kinds.js';
import { traced } from './origin.js';

/** Every resource the SDK builds: a manifest of one of the kinds the server serves. */
export type Resource = Resources[keyof Resources];

/** The kinds the server serves. */
export type Kind = keyof Resources;

/**
 * A resource of any kind, typed by that kind's schema: `resource('Folder', { metadata: { name:
 * 'team' }, spec: { items: [] } })`. `dashboard`, `datasource`, `project` and the others read
 * better where they exist.
 */
export function resource<K extends Kind>(kind: K, body: Omit<Resources[K], 'kind'>): Resources[K] {
  if (!(kind in KIND_SCOPES)) throw new Error(`resource(): unknown kind "${kind}"; known: ${Object.keys(KIND_SCOPES).join(', ')}`);
  return traced({ kind, ...body } as Resources[K], resource);
}

/** Whether `value` looks like a resource (an object with a string `kind`), as dashctl build reads exports. */
export function isResource(value: unknown): value is Resource {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && typeof (value as { kind?: unknown }).kind === 'string';
}
