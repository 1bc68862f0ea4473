import { CliError } from './errors.js';

/** One step of a path: a key, an index or slice, every child, a filter, or a descent to every level. */
type Step =
  | { key: string }
  | { indexes: number[] }
  | { slice: [number | undefined, number | undefined, number | undefined] }
  | { all: true }
  | { filter: Filter }
  | { descend: true };

interface Filter {
  left: Step[];
  op?: '==' | '!=' | '<' | '<=' | '>' | '>=';
  right?: unknown;
}

/** A parsed template: text, a path to print, a string, or a range over a path up to its end. */
type Node = { text: string } | { path: Step[] } | { range: Step[]; body: Node[] };

/**
 * kubectl's JSONPath templates (`-o jsonpath=...`): text with `{...}` expressions, each a path
 * (`.metadata.name`, `['a.b']`, `[0]`, `[-1]`, `[1:3]`, `[*]`, `..name`, `[?(@.spec.default==true)]`,
 * from `$` or `@`), a string (`{"\n"}`), or `{range PATH}...{end}`. A path's results are printed
 * separated by spaces: strings as they are, other values as JSON; a missing key prints nothing
 * (kubectl's default, --allow-missing-template-keys).
 */
export function compileJsonPath(template: string): (data: unknown) => string {
  const nodes = parseTemplate(template);
  return (data) => render(nodes, data, data);
}

/** The values one path (`.metadata.name`, or `{.metadata.name}`) selects, for kubectl's `-o custom-columns`. */
export function compileJsonPathValues(path: string): (data: unknown) => unknown[] {
  const text = /^\{.*\}$/s.test(path.trim()) ? path.trim().slice(1, -1).trim() : path.trim();
  const steps = parsePath(text, path);
  return (data) => evaluate(steps, data, data);
}

function render(nodes: Node[], root: unknown, current: unknown): string {
  let out = '';
  for (const n of nodes) {
    if ('text' in n) out += n.text;
    else if ('path' in n)
      out += evaluate(n.path, root, current)
        .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
        .join(' ');
    else
      for (const item of evaluate(n.range, root, current).flatMap((v) => (Array.isArray(v) && !endsWithAll(n.range) ? v : [v])))
        out += render(n.body, root, item);
  }
  return out;
}

const endsWithAll = (path: Step[]) => path.length > 0 && 'all' in path[path.length - 1];

function evaluate(path: Step[], root: unknown, current: unknown): unknown[] {
  let nodes: unknown[] = [current];
  for (const step of path) nodes = nodes.flatMap((n) => apply(step, n, root));
  return nodes;
}

function apply(step: Step, n: unknown, root: unknown): unknown[] {
  if ('descend' in step) return everything(n);
  if ('key' in step)
    return n !== null && typeof n === 'object' && !Array.isArray(n) && step.key in n ? [(n as Record<string, unknown>)[step.key]] : [];
  const children = Array.isArray(n) ? n : n !== null && typeof n === 'object' ? Object.values(n) : [];
  if ('all' in step) return children;
  if ('filter' in step) return children.filter((c) => test(step.filter, c, root));
  if (!Array.isArray(n)) return [];
  if ('indexes' in step) return step.indexes.map((i) => n[i < 0 ? n.length + i : i]).filter((v) => v !== undefined);
  const [from = 0, to = n.length, by = 1] = step.slice;
  const at = (i: number) => Math.max(0, Math.min(n.length, i < 0 ? n.length + i : i));
  const out: unknown[] = [];
  for (let i = at(from); i < at(to); i += Math.max(1, by)) out.push(n[i]);
  return out;
}

/** A value and every value inside it, depth first (`..`). */
function everything(n: unknown): unknown[] {
  const inside = Array.isArray(n) ? n : n !== null && typeof n === 'object' ? Object.values(n) : [];
  return [n, ...inside.flatMap(everything)];
}

function test(f: Filter, item: unknown, root: unknown): boolean {
  const [left] = evaluate(f.left, root, item);
  if (!f.op) return left !== undefined && left !== null && left !== false;
  const right = f.right;
  switch (f.op) {
    case '==':
      return left === right;
    case '!=':
      return left !== right;
    default: {
      if (typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
      const [a, b] = [left as number | string, right as number | string];
      return f.op === '<' ? a < b : f.op === '<=' ? a <= b : f.op === '>' ? a > b : a >= b;
    }
  }
}

function parseTemplate(template: string): Node[] {
  const top: Node[] = [];
  const stack: { body: Node[] }[] = [{ body: top }];
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      stack[stack.length - 1].body.push({ text: template.slice(i) });
      break;
    }
    if (open > i) stack[stack.length - 1].body.push({ text: template.slice(i, open) });
    const close = closingBrace(template, open);
    const expr = template.slice(open + 1, close).trim();
    i = close + 1;
    if (expr === 'end') {
      if (stack.length === 1) throw jsonPathError(template, '{end} without {range}');
      stack.pop();
    } else if (expr.startsWith('range ')) {
      const range: Node = { range: parsePath(expr.slice(6).trim(), template), body: [] };
      stack[stack.length - 1].body.push(range);
      stack.push(range as { body: Node[] });
    } else if (/^"(?:[^"\\]|\\.)*"$/.test(expr)) {
      stack[stack.length - 1].body.push({ text: JSON.parse(expr) as string });
    } else {
      stack[stack.length - 1].body.push({ path: parsePath(expr, template) });
    }
  }
  if (stack.length > 1) throw jsonPathError(template, '{range} without {end}');
  return top;
}

function closingBrace(s: string, open: number): number {
  let quote = '';
  for (let i = open + 1; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '}') return i;
  }
  throw jsonPathError(s, `unclosed { at ${open + 1}`);
}

/** `.a.b[0]['c'][?(@.x=="y")]..name` after an optional `$` or `@`. */
function parsePath(text: string, template: string): Step[] {
  const steps: Step[] = [];
  let i = text.startsWith('$') || text.startsWith('@') ? 1 : 0;
  const name = () => {
    const m = /^[\w-]+|^\*/.exec(text.slice(i));
    if (!m) throw jsonPathError(template, `a name is expected at "${text.slice(i) || text}"`);
    i += m[0].length;
    return m[0];
  };
  while (i < text.length) {
    if (text.startsWith('..', i)) {
      steps.push({ descend: true });
      i += 2;
      if (text[i] !== '[') {
        const n = name();
        steps.push(n === '*' ? { all: true } : { key: n });
      }
    } else if (text[i] === '.') {
      i++;
      const n = name();
      steps.push(n === '*' ? { all: true } : { key: n });
    } else if (text[i] === '[') {
      const end = closingBracket(text, i, template);
      steps.push(bracket(text.slice(i + 1, end).trim(), template));
      i = end + 1;
    } else {
      throw jsonPathError(template, `unexpected "${text[i]}" in "${text}"`);
    }
  }
  return steps;
}

function closingBracket(s: string, open: number, template: string): number {
  let depth = 0;
  let quote = '';
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = '';
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '[' || c === '(') depth++;
    else if ((c === ']' || c === ')') && --depth === 0) return i;
  }
  throw jsonPathError(template, `unclosed [ in "${s}"`);
}

function bracket(inner: string, template: string): Step {
  if (inner === '*') return { all: true };
  if (/^'[^']*'$|^"[^"]*"$/.test(inner)) return { key: inner.slice(1, -1) };
  if (/^-?\d+(\s*,\s*-?\d+)*$/.test(inner)) return { indexes: inner.split(',').map(Number) };
  const slice = /^(-?\d+)?:(-?\d+)?(?::(\d+))?$/.exec(inner);
  if (slice)
    return {
      slice: [slice[1], slice[2], slice[3]].map((x) => (x === undefined ? undefined : Number(x))) as [
        number | undefined,
        number | undefined,
        number | undefined,
      ],
    };
  const filter = /^\?\((.*)\)$/s.exec(inner);
  if (filter) return { filter: parseFilter(filter[1].trim(), template) };
  throw jsonPathError(template, `"[${inner}]" is not an index, a slice, a 'key', * or a ?(filter)`);
}

function parseFilter(text: string, template: string): Filter {
  const m = /^(@[^=!<>\s]*)\s*(==|!=|<=|>=|<|>)\s*(.+)$/.exec(text);
  if (!m) {
    if (!text.startsWith('@')) throw jsonPathError(template, `a filter compares @... with a value: "${text}"`);
    return { left: parsePath(text, template) };
  }
  const raw = m[3].trim();
  let right: unknown;
  if (/^'.*'$/.test(raw)) right = raw.slice(1, -1);
  else {
    try {
      right = JSON.parse(raw);
    } catch {
      throw jsonPathError(template, `${raw} is not a string, a number, true, false or null`);
    }
  }
  return { left: parsePath(m[1], template), op: m[2] as NonNullable<Filter['op']>, right };
}

function jsonPathError(template: string, why: string): CliError {
  return new CliError(
    `-o jsonpath=${template}: ${why} (kubectl's syntax: {.metadata.name}, {range .items[*]}{.metadata.name}{"\\n"}{end})`,
  );
}
