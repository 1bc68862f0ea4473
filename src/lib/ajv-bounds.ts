/**
 * The code ajv generates for `allErrors` validators, made linear and bounded (COST-02).
 *
 * As ajv writes it, a validator that calls another (a `$ref`) merges the callee's errors with
 * `vErrors = vErrors.concat(callee.errors)`: every merge copies every error found so far, so a
 * dashboard of 100,000 invalid panels took 47 s (quadratic in the errors). Here the merge appends,
 * and a validator stops with a `SchemaErrorOverflow` (carrying the errors it holds) once it holds
 * more than `MAX_SCHEMA_ERRORS`: finding and reporting them costs at most linear time in that cap.
 * A valid object never gets there (it has no errors), so validation of valid objects is unchanged.
 */

/**
 * The most schema errors a validator collects before it stops: a real object has a few dozen at
 * most, and describing each costs a few microseconds. A validator counts the errors it holds,
 * including those of a oneOf/anyOf alternative it will drop when another one matches: none of the
 * schemas has an alternative that could gather this many from a valid object (an alternative
 * fails on a few properties of the value it is tried on, not on each item of a list inside it).
 */
export const MAX_SCHEMA_ERRORS = 1000;

/** The message of the error a bounded validator throws (the same in generated and runtime code). */
const OVERFLOW = 'schema error overflow';

/** What a bounded validator throws when it holds more than `MAX_SCHEMA_ERRORS` errors. */
export interface SchemaErrorOverflow extends Error {
  /** The errors it held: the first ones it found, in the order it found them. */
  schemaErrors: unknown[];
}

/** Whether `e` is the error a bounded validator throws. */
export function isSchemaErrorOverflow(e: unknown): e is SchemaErrorOverflow {
  return e instanceof Error && e.message === OVERFLOW && Array.isArray((e as SchemaErrorOverflow).schemaErrors);
}

const HELPER = `function schemaErrorOverflow(errors) { const e = new Error(${JSON.stringify(OVERFLOW)}); e.schemaErrors = errors; return e; }`;
const MERGE = /vErrors = vErrors === null \? ([\w$.]+) : vErrors\.concat\(\1\);/g;
const COUNT = /\berrors\+\+;/g;

/**
 * `code` (a standalone module, or one validator's source as ajv's `code.process` receives it) with
 * linear merges and the error cap. Throws when ajv's code no longer has the shapes rewritten here
 * (a new ajv version): a validator left quadratic must not pass unnoticed.
 */
export function boundErrorCollection(code: string): string {
  let merges = 0;
  let counts = 0;
  const out = code
    .replace(MERGE, (_m, callee: string) => {
      merges++;
      return `if (vErrors === null) vErrors = ${callee}; else for (const e of ${callee}) vErrors.push(e); if (vErrors.length > ${MAX_SCHEMA_ERRORS}) throw schemaErrorOverflow(vErrors);`;
    })
    .replace(COUNT, () => {
      counts++;
      return `if (++errors > ${MAX_SCHEMA_ERRORS}) throw schemaErrorOverflow(vErrors);`;
    });
  if (/vErrors\.concat\(/.test(out) || (/\bvErrors\b/.test(code) && merges + counts === 0)) {
    throw new Error(
      'ajv-bounds: the validator code has a shape this rewrite does not know (a new ajv version?); update src/lib/ajv-bounds.ts',
    );
  }
  return merges + counts === 0 ? code : `${HELPER}\n${out}`;
}
