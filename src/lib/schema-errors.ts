import type { ErrorDetail } from '../errors.js';
import { joinPath } from './object-path.js';

/** A compiled validator (ajv standalone or runtime). */
export interface ValidateFunction {
  (data: unknown): boolean;
  errors?: AjvLikeError[] | null;
}

/** The fields of an ajv error that dashplane reads. */
export interface AjvLikeError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** Runs a validator and returns every problem as a user-facing detail (empty when valid). */
export function schemaErrors(validate: ValidateFunction, data: unknown, basePath = ''): ErrorDetail[] {
  if (validate(data)) return [];
  return toDetails(validate.errors ?? [], data, basePath);
}

/** Converts ajv errors into details with dotted JSON paths, dropping combinator noise and duplicates. */
export function toDetails(errors: readonly AjvLikeError[], data: unknown, basePath = ''): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    if (e.keyword === 'if') continue; // "must match then schema": the real error is reported too
    const { path, message } = describe(e, data, basePath);
    const id = `${path}\u0000${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push({ path: path || '(root)', message });
  }
  return out;
}

function describe(e: AjvLikeError, data: unknown, basePath: string): ErrorDetail {
  const path = pointerToPath(e.instancePath, data, basePath);
  const p = e.params;
  switch (e.keyword) {
    case 'required':
      return { path: joinPath(path, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: joinPath(path, String(p.additionalProperty)), message: 'is not a known field here; remove it or check its spelling' };
    case 'enum':
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'pattern':
      return { path, message: `must match the pattern ${String(p.pattern)}` };
    case 'type':
      return { path, message: `must be ${article(String(p.type))}` };
    default:
      return { path, message: e.message ?? `fails the ${e.keyword} rule` };
  }
}

function article(type: string): string {
  if (type === 'array' || type === 'object' || type === 'integer') return `an ${type}`;
  if (type === 'null') return 'null';
  return `a ${type}`;
}

/** `/spec/items/0/x` -> `spec.items[0].x`, using the data to tell array indexes from map keys. */
export function pointerToPath(pointer: string, data: unknown, basePath = ''): string {
  let path = basePath;
  let cur: unknown = data;
  if (pointer === '') return path;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur)) {
      path = joinPath(path, Number(seg));
      cur = cur[Number(seg)];
    } else {
      path = joinPath(path, seg);
      cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  return path;
}
