/**
 * Every import of src/, sdk/, cli/ and the web UI (ui/src/) runs downward through the layers of docs/architecture.md
 * ("Layers"), and no module reaches itself through its imports. The table below is that section's;
 * a test also checks the two agree.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { PACKAGE_ROOT } from '../src/paths.js';

/**
 * Bottom first. Each line holds units (a directory ending in "/", or files joined by "+"); a
 * module imports only from its own unit and from units on lower lines, never from another unit
 * of its own line. A path is in the unit of its longest matching prefix.
 */
const LAYERS: readonly (readonly string[])[] = [
  ['src/errors.ts', 'src/paths.ts', 'src/kinds/generated/', 'sdk/'],
  ['src/lib/', 'src/build-info.ts'],
  ['src/config.ts+src/config-perses.ts'],
  ['src/storage/', 'src/access/', 'src/proxy/', 'src/plugins/', 'src/migrate/'],
  ['src/kinds/'],
  ['src/secrets/', 'src/audit/', 'src/schemas/'],
  ['src/resources/'],
  ['src/auth/', 'src/controllers/', 'src/profiles/', 'src/search/'],
  ['src/admin/'],
  ['src/api/'],
  ['src/main.ts+src/compose-auth.ts'],
  ['src/bin/', 'cli/'],
  // the web UI (bundled by vite): it reaches below its own lines only into src/lib/ (a test below)
  ['ui/src/'],
  ['ui/src/perses/+ui/src/plugins.ts', 'ui/src/editor/', 'ui/src/search/', 'ui/src/share/'],
  ['ui/src/playlists/'],
  ['ui/src/manage/'],
  ['ui/src/pages/'],
  ['ui/src/App.tsx+ui/src/main.tsx+ui/src/route-prefetch.tsx'],
];

/** What the web UI may import from outside ui/: the dependency-free shared helpers. */
const UI_MAY_REACH = ['src/lib/'];

interface Unit {
  name: string;
  layer: number;
  paths: string[];
}

const UNITS: Unit[] = LAYERS.flatMap((units, layer) => units.map((name) => ({ name, layer, paths: name.split('+') })));

/** The unit of a repository path (longest matching prefix), or undefined. */
function unitOf(path: string): Unit | undefined {
  let best: { unit: Unit; length: number } | undefined;
  for (const unit of UNITS) {
    for (const p of unit.paths) {
      const match = p.endsWith('/') ? path.startsWith(p) : path === p;
      if (match && (!best || p.length > best.length)) best = { unit, length: p.length };
    }
  }
  return best?.unit;
}

/** Product modules (tests and generated-test helpers aside) under `dir`, as repository paths. */
function modules(dir: string): string[] {
  return readdirSync(join(PACKAGE_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts'))
    .map((e) => relative(PACKAGE_ROOT, join(e.parentPath, e.name)).split('\\').join('/'));
}

/**
 * The source with comments removed and every string, template and regular-expression literal
 * replaced by a placeholder (`"#N"` for string N of `strings`). A scanner, not regular expressions
 * over the text: `/*` inside a string (a route such as `${base}/*`) must not hide the code after it.
 * A `/` starts a regular expression where an expression may start (after an operator, an opening
 * bracket, a comma or a keyword such as `return`), else it divides.
 */
function scanSource(source: string): { code: string; strings: string[] } {
  const strings: string[] = [];
  let code = '';
  let i = 0;
  /** Where `}` closes a `${...}` of a template literal instead of a block. */
  const templateDepths: number[] = [];
  let depth = 0;
  const regexMayStart = () => {
    const before = code.trimEnd();
    if (before === '' || /[(,=:[!&|?{};+\-*%<>~^]$/.test(before)) return true;
    return /\b(?:return|typeof|case|in|of|new|delete|void|throw|else|do|await|yield)$/.test(before);
  };
  const readQuoted = (quote: string): string => {
    let text = '';
    i++;
    while (i < source.length && source[i] !== quote) {
      if (source[i] === '\\') text += source[i++];
      text += source[i++];
    }
    i++;
    return text;
  };
  /** Reads template text up to the closing backtick or to a `${`, which it enters. */
  const readTemplate = () => {
    while (i < source.length) {
      const c = source[i];
      if (c === '\\') i += 2;
      else if (c === '`') {
        i++;
        code += '"#T"';
        return;
      } else if (c === '$' && source[i + 1] === '{') {
        i += 2;
        code += '"#T"+(';
        templateDepths.push(depth);
        depth++;
        return;
      } else i++;
    }
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      while (i < source.length && source[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      i = end < 0 ? source.length : end + 2;
      code += ' ';
    } else if (c === "'" || c === '"') {
      strings.push(readQuoted(c));
      code += `"#${strings.length - 1}"`;
    } else if (c === '`') {
      i++;
      readTemplate();
    } else if (c === '/' && regexMayStart()) {
      i++;
      let inClass = false;
      while (i < source.length && (inClass || source[i] !== '/') && source[i] !== '\n') {
        if (source[i] === '\\') i++;
        else if (source[i] === '[') inClass = true;
        else if (source[i] === ']') inClass = false;
        i++;
      }
      i++;
      while (/[a-z]/.test(source[i] ?? '')) i++;
      code += '/R/';
    } else if (c === '{') {
      depth++;
      code += c;
      i++;
    } else if (c === '}') {
      depth--;
      i++;
      if (templateDepths.length && templateDepths[templateDepths.length - 1] === depth) {
        templateDepths.pop();
        code += ')+';
        readTemplate();
      } else code += c;
    } else {
      code += c;
      i++;
    }
  }
  return { code, strings };
}

/**
 * The relative module specifiers a source imports: `import ... from`, `export ... from`, bare
 * `import '...'` and `import('...')`, wherever they stand on a line; comments and the contents of
 * other strings aside.
 */
function importsOf(source: string): string[] {
  const { code, strings } = scanSource(source);
  const out: string[] = [];
  const patterns = [/\b(?:import|export)\s[^;"]*?\bfrom\s*"#(\d+)"/g, /\bimport\s*"#(\d+)"/g, /\bimport\(\s*"#(\d+)"\s*\)/g];
  for (const re of patterns) for (const m of code.matchAll(re)) out.push(strings[Number(m[1])]);
  return out.filter((s) => s.startsWith('.'));
}

/**
 * The module a relative specifier of `from` names: Node's `./x.js` is `./x.ts`; the UI's
 * extensionless `./x` (vite resolves it) is `./x.ts`, `./x.tsx` or `./x/index.ts(x)`.
 */
function resolve(from: string, specifier: string): string {
  const base = normalize(join(dirname(from), specifier))
    .split('\\')
    .join('/');
  if (base.endsWith('.js')) return base.replace(/\.js$/, '.ts');
  if (/\.tsx?$/.test(base)) return base;
  const candidates = [`${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`];
  return candidates.find((c) => existsSync(join(PACKAGE_ROOT, c))) ?? `${base}.ts`;
}

/** Every import edge between product modules: from -> to, both repository paths. */
function edges(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...modules('src'), ...modules('sdk'), ...modules('cli'), ...modules('ui/src')]) {
    graph.set(
      file,
      importsOf(readFileSync(join(PACKAGE_ROOT, file), 'utf8')).map((s) => resolve(file, s)),
    );
  }
  return graph;
}

/** Strongly connected groups of more than one module, or a module importing itself. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('Layers (docs/architecture.md)', () => {
  const graph = edges();

  it('every product module belongs to a layer', () => {
    expect([...graph.keys()].filter((f) => !unitOf(f))).to.deep.equal([]);
  });

  it("every import runs downward: to the module's own unit or to a unit on a lower line", () => {
    const upward: string[] = [];
    for (const [from, targets] of graph) {
      const a = unitOf(from)!;
      for (const to of targets) {
        const b = unitOf(to);
        if (!b) upward.push(`${from} -> ${to} (not in any layer)`);
        else if (b !== a && b.layer >= a.layer)
          upward.push(`${from} (${a.name}, line ${a.layer + 1}) -> ${to} (${b.name}, line ${b.layer + 1})`);
      }
    }
    expect(upward).to.deep.equal([]);
  });

  it('the web UI reaches outside ui/ only into the shared helpers of src/lib/', () => {
    const outside: string[] = [];
    for (const [from, targets] of graph) {
      if (!from.startsWith('ui/')) continue;
      for (const to of targets) if (!to.startsWith('ui/') && !UI_MAY_REACH.some((p) => to.startsWith(p))) outside.push(`${from} -> ${to}`);
    }
    expect(outside).to.deep.equal([]);
    expect([...graph.keys()].filter((f) => f.startsWith('ui/src/')).length, 'the UI modules are read').to.be.greaterThan(50);
  });

  it('no import cycle between modules', () => {
    expect(cycles(graph)).to.deep.equal([]);
  });

  it('the checks catch what they are for: an upward import and a cycle', () => {
    expect(
      importsOf(
        `import { a } from '../x.js';\nexport type { B } from './b.js';\nimport './side.js';\n// import { no } from './comment.js';\nconst m = await import('./lazy.js');`,
      ),
    ).to.deep.equal(['../x.js', './b.js', './side.js', './lazy.js']);
    // what a comment-stripping regular expression missed: '/*' in a string hid the code after it,
    // and only the first import of a line was seen
    const tricky = [
      'const route = `${base}/*`;',
      "app.get('/api/*', h); void import('../up.js');",
      'const re = /[\'"]/g; const s = \'import("./in-a-string.js")\';',
      'const t = `a ${`nested ${x}`} import("./in-a-template.js")`;',
      "/* block */ import { c } from './c.js'; import { d } from './d.js';",
      'const half = total / 2; const m2 = await import(`./template-path.js`);',
    ].join('\n');
    expect(importsOf(tricky)).to.deep.equal(['./c.js', './d.js', '../up.js']);
    expect(unitOf('src/kinds/generated/types.ts')!.layer).to.be.lessThan(unitOf('src/kinds/user.ts')!.layer);
    expect(unitOf('src/storage/store.ts')!.layer).to.be.lessThan(unitOf('src/resources/service.ts')!.layer);
    expect(
      cycles(
        new Map([
          ['a', ['b']],
          ['b', ['c']],
          ['c', ['a']],
          ['d', ['a']],
        ]),
      ),
    ).to.deep.equal([['a', 'b', 'c']]);
    expect(cycles(new Map([['a', ['a']]]))).to.deep.equal([['a']]);
  });

  it('docs/architecture.md states the same layers', () => {
    const doc = readFileSync(join(PACKAGE_ROOT, 'docs', 'architecture.md'), 'utf8');
    const section = doc.slice(doc.indexOf('## Layers'), doc.indexOf('\n## ', doc.indexOf('## Layers') + 1));
    const lines = [...section.matchAll(/^\s*(\d+)\s{2,}(\S.*?)\s{2,}\S/gm)].map((m) => ({
      n: Number(m[1]),
      units: m[2].split(/\s+·\s+/).map((u) => u.replace(/ \+ /g, '+')),
    }));
    expect(lines.sort((x, y) => x.n - y.n).map((l) => l.units)).to.deep.equal(LAYERS.map((l) => [...l]));
  });
});
