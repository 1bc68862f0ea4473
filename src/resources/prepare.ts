import { badRequest, invalid, type ErrorDetail } from '../errors.js';
import type { KindDescriptor } from '../kinds/descriptor.js';
import type { Envelope, Metadata } from '../storage/store.js';
import { invalidNameWords, nameProblem } from '../lib/names.js';
import { isObj, type Obj } from '../lib/is-obj.js';
import { schemaErrors } from '../lib/schema-errors.js';

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
  const kindMissing = body.kind === undefined || body.kind === null;
  if (kindMissing && !namesProblems(d, body, target, requireProject)) {
    throw badRequest(`kind is missing: add "kind": "${d.kind}" to the body`, [{ path: 'kind', message: `is required: "${d.kind}"` }]);
  }
  if (!kindMissing && (typeof body.kind !== 'string' || body.kind.toLowerCase() !== d.kind.toLowerCase())) {
    throw badRequest(`kind ${JSON.stringify(body.kind)} does not match this endpoint, which serves ${d.kind}`, [
      { path: 'kind', message: `must be "${d.kind}"` },
    ]);
  }
  const meta: Obj = isObj(body.metadata) ? { ...body.metadata } : {};
  if (body.metadata !== undefined && !isObj(body.metadata)) throw invalid([{ path: 'metadata', message: 'must be an object' }]);
  // A bad name or project is reported with every other problem of the body (the schema's), not alone.
  const names: ErrorDetail[] = [];
  const checkName = (field: string, value: unknown) => {
    const problem = nameProblem(value);
    if (problem) names.push({ path: field, message: `${invalidNameWords(field)}: it ${problem}` });
  };
  meta.name = matchPath('metadata.name', meta.name, target.name);
  checkName('metadata.name', meta.name);
  if (d.scope === 'project') {
    meta.project = matchPath('metadata.project', meta.project, target.project);
    if (requireProject || meta.project !== '') checkName('metadata.project', meta.project);
  } else if (meta.project !== undefined && meta.project !== '') {
    throw badRequest(`metadata.project is not allowed: ${d.kind} is a global kind; remove it (or use the project-scoped kind)`, [
      { path: 'metadata.project', message: 'not allowed on a global kind' },
    ]);
  } else {
    delete meta.project;
  }
  const { kind: _k, metadata: _m, spec, ...rest } = body;
  const obj = { kind: d.kind, metadata: meta as unknown as Metadata, ...(spec !== undefined ? { spec } : {}), ...rest } as Envelope;
  if (kindMissing) names.push({ path: 'kind', message: `is required: "${d.kind}"` });
  if (names.length) throw invalid([...names, ...otherProblems(d, obj, names)], d.kind);
  return obj;
}

/** Whether the body's name or project (as `identify` reads them) is not a valid name. */
function namesProblems(d: KindDescriptor, body: Obj, target: Target, requireProject: boolean): boolean {
  const meta: Obj = isObj(body.metadata) ? body.metadata : {};
  if (nameProblem(target.name ?? meta.name) !== undefined) return true;
  if (d.scope !== 'project') return false;
  const project = meta.project === undefined || meta.project === null || meta.project === '' ? target.project : meta.project;
  return (requireProject || project !== undefined) && nameProblem(project) !== undefined;
}

/** The schema's problems with a body whose name is not valid, at other paths than the name's. */
function otherProblems(d: KindDescriptor, obj: Envelope, names: ErrorDetail[]): ErrorDetail[] {
  const copy = structuredClone(obj) as unknown as Record<string, unknown>;
  try {
    d.hooks?.normalize?.(copy);
  } catch {
    // an older form the hook cannot read is left to the schema
  }
  const meta = copy.metadata as Obj;
  for (const n of names) if (n.path.startsWith('metadata.')) meta[n.path.slice('metadata.'.length)] = 'x'; // already reported
  Object.assign(meta, { createdAt: '1970-01-01T00:00:00Z', updatedAt: '1970-01-01T00:00:00Z', version: 0 });
  return schemaErrors(d.validate, copy, '', d.kind);
}

/** An empty body value takes the path's; a different one is a 400. */
function matchPath(field: string, fromBody: unknown, fromPath: string | undefined): unknown {
  if (fromPath === undefined) return fromBody ?? '';
  if (fromBody === undefined || fromBody === null || fromBody === '') return fromPath;
  if (fromBody !== fromPath) {
    throw badRequest(`${field} ${JSON.stringify(fromBody)} does not match ${JSON.stringify(fromPath)} in the URL path`, [
      { path: field, message: `must be "${fromPath}" (or omitted)` },
    ]);
  }
  return fromBody;
}

/** Older Perses exports' spellings of createdAt and updatedAt. */
const LEGACY_SERVER_OWNED = ['created_at', 'updated_at'];

/** Server-owned metadata wins over client values (older spellings dropped); tags are de-duplicated and sorted. */
export function stampMetadata(obj: Envelope, fields: { createdAt: string; updatedAt: string; version: number }): void {
  const m = obj.metadata as unknown as Obj;
  m.createdAt = fields.createdAt;
  m.updatedAt = fields.updatedAt;
  m.version = fields.version;
  // what Perses wrote before its metadata was camelCase: server-owned too, so ignored alike
  for (const legacy of LEGACY_SERVER_OWNED) delete m[legacy];
  if (m.tags === null) delete m.tags;
  if (Array.isArray(m.tags) && m.tags.every((t) => typeof t === 'string')) m.tags = [...new Set(m.tags as string[])].sort();
}
