import { invalid, type ErrorDetail } from '../errors.js';
import { isSchemaErrorOverflow, MAX_SCHEMA_ERRORS } from './ajv-bounds.js';
import { clip, clipPath } from './clip.js';
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
  /** Set on the errors of a `propertyNames` rule: the key that broke it. */
  propertyName?: string;
}

/** What the schemas' patterns mean, in words (a pattern alone tells a user little). */
const PATTERN_WORDS: Record<string, (value: unknown) => string> = {
  '^(?!__)[0-9]*[^0-9\\W]\\w*$': (v) =>
    typeof v === 'string' && v.startsWith('__')
      ? 'must not start with "__": that is the builtin variable prefix'
      : 'must be letters, digits and "_", not only digits (e.g. "instance", "job_2")',
  '^(\\d+y)?(\\d+w)?(\\d+d)?(\\d+h)?(\\d+m)?(\\d+s)?(\\d+ms)?$': () =>
    'must be a duration such as "30s", "5m", "1h30m" or "7d" (units y, w, d, h, m, s, ms, in that order)',
  '^[a-zA-Z0-9_.-]+$': () => 'may only contain a-z, A-Z, 0-9, "_", "-" and "." (no spaces or other characters)',
  '^#/spec/panels/[a-zA-Z0-9_.-]+$': () => 'must be "#/spec/panels/<key>" naming a panel of this dashboard',
  '^\\S(?:.*\\S)?$': () => 'must not start or end with spaces',
  // a duration that is not zero (EphemeralDashboard ttl)
  '[1-9]': () => 'must be a duration greater than zero, such as "30m", "24h" or "7d"',
};

/**
 * Runs a validator and returns every problem as a user-facing detail (empty when valid). A
 * validator that found more than MAX_SCHEMA_ERRORS problems stops (src/lib/ajv-bounds.ts): that is
 * an `Invalid` error at once, listing the first ones; `what` names the object in its message.
 */
export function schemaErrors(validate: ValidateFunction, data: unknown, basePath = '', what?: string): ErrorDetail[] {
  try {
    if (validate(data)) return [];
  } catch (e) {
    if (!isSchemaErrorOverflow(e)) throw e;
    throw invalid(toDetails(e.schemaErrors as AjvLikeError[], data, basePath), what, MAX_SCHEMA_ERRORS);
  }
  return toDetails(validate.errors ?? [], data, basePath);
}

/** Converts ajv errors into details with dotted JSON paths, dropping combinator noise and duplicates (linear in the errors). */
function toDetails(errors: readonly AjvLikeError[], data: unknown, basePath = ''): ErrorDetail[] {
  const explained: ErrorDetail[] = [];
  const out: ErrorDetail[] = [];
  const seen = new Set<string>();
  const paths = new Map<string, string>(); // errors at one object share its path
  const respelled = misspelledRequired(errors);
  for (const e of errors) {
    if (e.keyword === 'if') continue; // "must match then schema": the real error is reported too
    if (e.keyword === 'propertyNames') continue; // "property name must be valid": the key's own error is reported too
    if (e.keyword === 'required' && respelled.taken.has(`${e.instancePath}/${String(e.params.missingProperty)}`)) continue; // said with the misspelling
    let at = paths.get(e.instancePath);
    if (at === undefined) {
      at = pointerToPath(e.instancePath, data, basePath);
      paths.set(e.instancePath, at);
    }
    const described = describe(e, at, data);
    const meant =
      e.keyword === 'additionalProperties' ? respelled.meant.get(`${e.instancePath}/${String(e.params.additionalProperty)}`) : undefined;
    // clipped here already: a key of megabytes would otherwise be copied into every string below
    const path = clipPath(described.path);
    const message = meant ? `is not a known field here: did you mean "${meant}" (which is required)?` : clip(described.message);
    const id = `${path}\u0000${message}`;
    if (seen.has(id)) continue;
    seen.add(id);
    // a misspelling explained goes first: it is the likeliest cause of the other problems (the
    // branches of a oneOf the misspelled key left unmatched)
    (meant ? explained : out).push({ path: path || '(root)', message });
  }
  return explained.length ? explained.concat(out) : out;
}

/** A key reduced to what spelling variants share: `direct_url`, `directURL` and `directUrl` alike. */
const loose = (key: string) => key.toLowerCase().replace(/[_-]/g, '');

/**
 * Unknown keys that are a required key spelled otherwise (`direct_url` for `directUrl`, as older
 * Perses wrote it): `meant` maps the unknown key (parent pointer + key) to the required one, and
 * `taken` holds the required keys so explained, whose own "is required" would only repeat it.
 */
function misspelledRequired(errors: readonly AjvLikeError[]): { meant: Map<string, string>; taken: Set<string> } {
  const missing = new Map<string, string[]>();
  for (const e of errors) {
    if (e.keyword !== 'required') continue;
    const list = missing.get(e.instancePath);
    if (list) list.push(String(e.params.missingProperty));
    else missing.set(e.instancePath, [String(e.params.missingProperty)]);
  }
  const meant = new Map<string, string>();
  const taken = new Set<string>();
  for (const e of errors) {
    if (e.keyword !== 'additionalProperties') continue;
    const key = String(e.params.additionalProperty);
    const match = (missing.get(e.instancePath) ?? []).find((m) => loose(m) === loose(key));
    if (match === undefined) continue;
    meant.set(`${e.instancePath}/${key}`, match);
    taken.add(`${e.instancePath}/${match}`);
  }
  return { meant, taken };
}

/** The detail of one error at `at`, the dotted path of its instancePath. */
function describe(e: AjvLikeError, at: string, data: unknown): ErrorDetail {
  // a key that breaks its object's propertyNames rule: the key is at fault, named by its path
  const path = e.propertyName !== undefined ? joinPath(at, e.propertyName) : at;
  const p = e.params;
  if (e.propertyName !== undefined && e.keyword === 'pattern') {
    return {
      path,
      message: `is not a valid key here: it ${PATTERN_WORDS[String(p.pattern)]?.(e.propertyName) ?? `must match the pattern ${String(p.pattern)}`}`,
    };
  }
  if (e.propertyName !== undefined && e.keyword === 'maxLength')
    return { path, message: `is not a valid key here: it must be at most ${String(p.limit)} characters long` };
  switch (e.keyword) {
    case 'required':
      return { path: joinPath(path, String(p.missingProperty)), message: 'is required' };
    case 'additionalProperties':
      return { path: joinPath(path, String(p.additionalProperty)), message: 'is not a known field here; remove it or check its spelling' };
    case 'enum':
      return { path, message: `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}` };
    case 'const':
      return { path, message: `must be ${JSON.stringify(p.allowedValue)}` };
    case 'pattern': {
      const words = PATTERN_WORDS[String(p.pattern)];
      return { path, message: words ? words(valueAt(data, e.instancePath)) : `must match the pattern ${String(p.pattern)}` };
    }
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
function pointerToPath(pointer: string, data: unknown, basePath = ''): string {
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

/** The value a JSON pointer names in `data` (undefined when it names nothing). */
function valueAt(data: unknown, pointer: string): unknown {
  let cur: unknown = data;
  if (pointer === '') return cur;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
  }
  return cur;
}
