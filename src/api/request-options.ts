import { badRequest } from '../errors.js';
import { checkManager } from '../resources/managers.js';
import { MANAGER_HEADER, SKIP_UNCHANGED_HEADER } from './headers.js';
import { assertName } from '../lib/names.js';

export type Query = Record<string, string | string[] | undefined>;

/** One value of a query parameter; repeating it is a 400. */
export function single(q: Query, name: string): string | undefined {
  const v = q[name];
  if (Array.isArray(v)) throw badRequest(`query parameter "${name}" is given ${v.length} times; give it once`);
  return v;
}

/** `true`/`false`/absent; anything else is a 400 naming the parameter. */
export function flag(q: Query, name: string): boolean {
  const v = single(q, name);
  if (v === undefined || v === 'false') return false;
  if (v === 'true' || v === '') return true;
  throw badRequest(`query parameter "${name}" must be true or false, not ${JSON.stringify(v)}`);
}

/** A positive integer parameter up to `max`. */
export function positiveInt(q: Query, name: string, max: number): number | undefined {
  const v = single(q, name);
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > max)
    throw badRequest(`query parameter "${name}" must be an integer from 1 to ${max}, not ${JSON.stringify(v)}`);
  return Number(v);
}

/** A name-valued parameter (e.g. project), checked before it touches a storage key. */
export function nameParam(q: Query, name: string): string | undefined {
  const v = single(q, name);
  if (v !== undefined) assertName(v, `query parameter "${name}"`);
  return v;
}

/** If-Match: `"3"`, `W/"3"` or `3` -> 3; `*` -> undefined (any existing version). */
export function ifMatch(header: string | string[] | undefined): number | undefined {
  if (header === undefined || header === '*') return undefined;
  const text = Array.isArray(header) ? header.join(',') : header;
  const m = /^\s*(?:W\/)?"?(\d+)"?\s*$/.exec(text);
  if (!m) throw badRequest(`If-Match must be the ETag of a GET, like "3", not ${JSON.stringify(text)}`);
  return Number(m[1]);
}

/**
 * The field manager a write names: the X-Dashplane-Manager header or the `fieldManager` query
 * parameter (as in Kubernetes); undefined when neither. Either must be a short token; both must agree.
 */
export function fieldManager(headers: Record<string, string | string[] | undefined>, q: Query): string | undefined {
  const header = headers[MANAGER_HEADER.toLowerCase()];
  const fromHeader =
    header === undefined ? undefined : checkManager(Array.isArray(header) ? header.join(', ') : header, 'the X-Dashplane-Manager header');
  const param = single(q, 'fieldManager');
  const fromQuery = param === undefined ? undefined : checkManager(param, 'query parameter "fieldManager"');
  if (fromHeader !== undefined && fromQuery !== undefined && fromHeader !== fromQuery) {
    throw badRequest(
      `the X-Dashplane-Manager header ("${fromHeader}") and query parameter fieldManager ("${fromQuery}") name different managers; send one of them`,
    );
  }
  return fromHeader ?? fromQuery;
}

/** X-Dashplane-Skip-Unchanged: `true` or `false` (absent: false); anything else is a 400 naming the header. */
export function skipUnchanged(headers: Record<string, string | string[] | undefined>): boolean {
  const v = headers[SKIP_UNCHANGED_HEADER.toLowerCase()];
  if (v === undefined || v === 'false') return false;
  if (v === 'true') return true;
  throw badRequest(`the ${SKIP_UNCHANGED_HEADER} header must be true or false, not ${JSON.stringify(Array.isArray(v) ? v.join(', ') : v)}`);
}
