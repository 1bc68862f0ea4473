import { type ApiError, badRequest } from '../errors.js';
import { joinPath } from '../lib/object-path.js';

/**
 * What one request body may hold (the `http` configuration). Every cost of reading a body is
 * linear in these, so they bound it whatever its shape (COST-01): the text is scanned against them
 * before JSON is parsed, and a YAML body is checked against them, its aliases expanded, before
 * anything is built from it.
 */
export interface BodyLimits {
  /** `http.max_json_depth`: nesting levels. */
  maxDepth: number;
  /** `http.max_body_nodes`: values (objects, arrays and scalars; keys are not counted). */
  maxNodes: number;
  /** `http.max_object_keys`: keys in one object. */
  maxKeys: number;
  /** `http.body_limit`: also the most text the scalars of a YAML body may stand for, aliases expanded. */
  maxBytes: number;
}

/** The limits the `http` configuration sets. */
export function bodyLimitsOf(http: {
  max_json_depth?: number;
  max_body_nodes: number;
  max_object_keys: number;
  body_limit: number;
}): BodyLimits {
  return { maxDepth: http.max_json_depth!, maxNodes: http.max_body_nodes, maxKeys: http.max_object_keys, maxBytes: http.body_limit };
}

export function tooDeep(l: BodyLimits): ApiError {
  return badRequest(`the body is nested more than ${l.maxDepth} levels deep (http.max_json_depth); flatten it`);
}

export function tooManyNodes(l: BodyLimits, aliases = false): ApiError {
  const counted = aliases ? ', counting each YAML alias as a copy of what it names' : '';
  return badRequest(`the body holds more than ${l.maxNodes} values${counted} (http.max_body_nodes); send fewer in one request`);
}

export function tooManyKeys(l: BodyLimits, path: string): ApiError {
  return badRequest(`${path || 'the body'}: an object holds more than ${l.maxKeys} keys (http.max_object_keys); use fewer keys`, [
    { path: path || '(root)', message: `more than ${l.maxKeys} keys` },
  ]);
}

/**
 * Checks JSON text against the limits without parsing it, in one pass: nesting, values (one plus
 * the members of every object and array) and keys per object. Strings are skipped; text that is
 * not JSON is left to JSON.parse. Costs about 3 ms per megabyte of small values, less of strings.
 */
export function scanJson(text: string, l: BodyLimits): void {
  const isObject: boolean[] = [];
  const members: number[] = [];
  /** Where the current member of each open container starts (the key's quote, in an object). */
  const starts: number[] = [];
  let depth = 0;
  let nodes = 1;
  let memberNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (memberNext) {
      memberNext = false;
      if (c !== 0x7d && c !== 0x5d) {
        const at = depth - 1;
        starts[at] = i;
        if (++nodes > l.maxNodes) throw tooManyNodes(l);
        if (++members[at] > l.maxKeys && isObject[at]) throw tooManyKeys(l, pathOf(text, isObject, members, starts, at));
      }
    }
    if (c === 0x22) {
      i = stringEnd(text, i);
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > l.maxDepth) throw tooDeep(l);
      isObject[depth - 1] = c === 0x7b;
      members[depth - 1] = 0;
      memberNext = true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    } else if (c === 0x2c && depth > 0) {
      memberNext = true;
    }
  }
}

/** Where the JSON string starting at `start` ends (its closing quote: one not escaped by an odd run of backslashes). */
function stringEnd(text: string, start: number): number {
  for (let q = text.indexOf('"', start + 1); q !== -1; q = text.indexOf('"', q + 1)) {
    let slashes = 0;
    while (text.charCodeAt(q - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return q;
  }
  return text.length;
}

/** The path of the container open at level `at` (for the message only). */
function pathOf(text: string, isObject: boolean[], members: number[], starts: number[], at: number): string {
  let path = '';
  for (let level = 0; level < at; level++) path = joinPath(path, isObject[level] ? keyAt(text, starts[level]) : members[level] - 1);
  return path;
}

/** The JSON string starting at `start` (a key), decoded. */
function keyAt(text: string, start: number): string {
  const end = stringEnd(text, start);
  try {
    return String(JSON.parse(text.slice(start, end + 1)));
  } catch {
    return text.slice(start + 1, end);
  }
}
