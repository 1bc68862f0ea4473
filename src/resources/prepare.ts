import { badRequest, invalid } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, Metadata } from '../storage/store.js';
import { assertName } from '../lib/names.js';
import { isObj, type Obj } from '../lib/is-obj.js';

/** Where the request said the object lives (path parameters), when it said so. */
export interface Target {
  project?: string;
  name?: string;
}

/**
 * Checks the identity of a request body against its endpoint and returns a fresh envelope:
 * canonical kind, name/project filled from the path when empty, mismatches rejected (docs/api.md §3).
 */
export function identify(d: KindDescriptor, body: unknown, target: Target, requireProject = true): Envelope {
  if (!isObj(body)) throw badRequest(`the request body must be a ${d.kind} object with "kind", "metadata" and "spec"`);
  if (body.kind !== undefined && (typeof body.kind !== 'string' || body.kind.toLowerCase() !== d.kind.toLowerCase())) {
    throw badRequest(`kind ${JSON.stringify(body.kind)} does not match this endpoint, which serves ${d.kind}`, [{ path: 'kind', message: `must be "${d.kind}"` }]);
  }
  const meta: Obj = isObj(body.metadata) ? { ...body.metadata } : {};
  if (body.metadata !== undefined && !isObj(body.metadata)) throw invalid([{ path: 'metadata', message: 'must be an object' }]);
  meta.name = matchPath('metadata.name', meta.name, target.name);
  assertName(meta.name, 'metadata.name');
  if (d.scope === 'project') {
    meta.project = matchPath('metadata.project', meta.project, target.project);
    if (requireProject || meta.project !== '') assertName(meta.project, 'metadata.project');
  } else if (meta.project !== undefined && meta.project !== '') {
    throw badRequest(`metadata.project is not allowed: ${d.kind} is a global kind; remove it (or use the project-scoped kind)`, [
      { path: 'metadata.project', message: 'not allowed on a global kind' },
    ]);
  } else {
    delete meta.project;
  }
  const { kind: _k, metadata: _m, spec, ...rest } = body;
  return { kind: d.kind, metadata: meta as unknown as Metadata, ...(spec !== undefined ? { spec } : {}), ...rest } as Envelope;
}

/** An empty body value takes the path's; a different one is a 400. */
function matchPath(field: string, fromBody: unknown, fromPath: string | undefined): unknown {
  if (fromPath === undefined) return fromBody ?? '';
  if (fromBody === undefined || fromBody === null || fromBody === '') return fromPath;
  if (fromBody !== fromPath) {
    throw badRequest(`${field} ${JSON.stringify(fromBody)} does not match ${JSON.stringify(fromPath)} in the URL path`, [{ path: field, message: `must be "${fromPath}" (or omitted)` }]);
  }
  return fromBody;
}

/** Server-owned metadata wins over client values; tags are de-duplicated and sorted. */
export function stampMetadata(obj: Envelope, fields: { createdAt: string; updatedAt: string; version: number }): void {
  const m = obj.metadata as unknown as Obj;
  m.createdAt = fields.createdAt;
  m.updatedAt = fields.updatedAt;
  m.version = fields.version;
  if (m.tags === null) delete m.tags;
  if (Array.isArray(m.tags) && m.tags.every((t) => typeof t === 'string')) m.tags = [...new Set(m.tags as string[])].sort();
}
