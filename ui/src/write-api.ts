// Creating and deleting resources (api.ts has reads, PUT and history).
import { call, resourcePath, type Resource } from './api';

/** POST to the collection; answers the stored object. `dryRun` validates only. */
export async function createResource<T = Resource>(plural: string, project: string | undefined, body: unknown, dryRun = false): Promise<T> {
  return (await call('POST', resourcePath(plural, project) + (dryRun ? '?dryRun=true' : ''), body)).json() as Promise<T>;
}

/** DELETE, with If-Match when the version the user saw is known. */
export async function deleteResource(plural: string, project: string | undefined, name: string, version?: number): Promise<void> {
  await call('DELETE', resourcePath(plural, project, name), undefined, version !== undefined ? { 'If-Match': `"${version}"` } : {});
}

/** A copy of an object for a new name (and project): server metadata dropped. */
export function copyOf(r: Resource, name: string, project?: string): Resource {
  return { kind: r.kind, metadata: { name, ...(project ? { project } : {}), ...(r.metadata.tags ? { tags: r.metadata.tags } : {}) }, spec: structuredClone(r.spec) };
}
