/**
 * A tiny printer of TypeScript expressions for `dashctl generate`: JSON values as object and
 * array literals, and builder calls. Short expressions stay on one line; longer ones break, one
 * entry a line, two spaces an indent.
 */

/** A call `name(args...)` in the generated code. */
export interface Call {
  call: string;
  args: Node[];
}

/** A reference to a `const` declared before the export. */
export interface Ref {
  ref: string;
}

/** What the printer prints: a JSON value that may hold calls and references. */
export type Node = null | boolean | number | string | Node[] | Call | Ref | { [key: string]: Node | undefined };

const CALL = (n: unknown): n is Call =>
  typeof n === 'object' &&
  n !== null &&
  !Array.isArray(n) &&
  Object.keys(n).length === 2 &&
  typeof (n as Call).call === 'string' &&
  Array.isArray((n as Call).args) &&
  !Object.hasOwn(n, '__json');
const REF = (n: unknown): n is Ref =>
  typeof n === 'object' &&
  n !== null &&
  !Array.isArray(n) &&
  Object.keys(n).length === 1 &&
  typeof (n as Ref).ref === 'string' &&
  !Object.hasOwn(n, '__json');

/** A call node. */
export const call = (name: string, ...args: Node[]): Call => ({ call: name, args });

/** An object literal whose entries are already nodes; never read as a call or a reference. */
export function object(entries: Record<string, Node | undefined>): Node {
  if (CALL(entries) || REF(entries)) Object.defineProperty(entries, '__json', { value: true, enumerable: false });
  return entries as Node;
}

/**
 * JSON data from the input, never read as a call or a reference even when its keys are `call` and
 * `args` or `ref` (an object of the input may have any keys).
 */
export function data(v: unknown): Node {
  if (Array.isArray(v)) return v.map(data);
  if (v && typeof v === 'object') {
    const out: Record<string, Node> = {};
    for (const [k, x] of Object.entries(v)) out[k] = data(x);
    return object(out);
  }
  return v as Node;
}

const WIDTH = 100;
const IDENT = /^[A-Za-z_$][\w$]*$/;

/** `'text'`, or a template literal for multi-line text, or a JSON string when quotes get in the way. */
export function str(s: string): string {
  if (s.includes('\n') && !/[`\\]|\$\{/.test(s) && !/[\r\u2028\u2029]/.test(s)) return `\`${s}\``;
  if (!/['\\\n\r\u2028\u2029]/.test(s)) return `'${s}'`;
  return JSON.stringify(s);
}

function key(k: string): string {
  if (k === '__proto__') return `['__proto__']`;
  return IDENT.test(k) ? k : str(k);
}

/** The expression's code, its continuation lines indented by `indent`. */
export function print(n: Node | undefined, indent = ''): string {
  if (n === undefined) return 'undefined';
  if (n === null || typeof n === 'boolean' || typeof n === 'number') return Object.is(n, -0) ? '-0' : String(n);
  if (typeof n === 'string') return str(n);
  const inner = `${indent}  `;
  if (Array.isArray(n))
    return list(
      '[',
      ']',
      n.map((x) => print(x, inner)),
      indent,
    );
  if (REF(n)) return n.ref;
  if (CALL(n)) {
    // a single object argument hugs the parentheses: name({ ... })
    const [only] = n.args;
    if (n.args.length === 1 && only && typeof only === 'object' && !CALL(only) && !REF(only)) return `${n.call}(${print(only, indent)})`;
    return `${n.call}${list(
      '(',
      ')',
      n.args.map((x) => print(x, inner)),
      indent,
    )}`;
  }
  const entries = Object.entries(n).filter(([, v]) => v !== undefined);
  return list(
    '{',
    '}',
    entries.map(([k, v]) => `${key(k)}: ${print(v, inner)}`),
    indent,
    true,
    true,
  );
}

function list(open: string, close: string, parts: string[], indent: string, trailingComma = true, spaced = false): string {
  const flat = parts.join(', ');
  if (!parts.length) return `${open}${close}`;
  if (!flat.includes('\n') && flat.length + indent.length < WIDTH) return spaced ? `${open} ${flat} ${close}` : `${open}${flat}${close}`;
  return `${open}\n${parts.map((p) => `${indent}  ${p}${trailingComma ? ',' : ''}`).join('\n')}\n${indent}${close}`;
}
