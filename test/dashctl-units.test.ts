import { expect } from 'chai';
import { Command, Option } from 'commander';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { fastLoad, lineFinder, parsePieces } from '../cli/yaml-pieces.js';
import { CliError } from '../cli/errors.js';
import { desiredForm, sameJson } from '../cli/compare.js';
import { complete } from '../cli/completion.js';
import { contextNameFor, loadConfig } from '../cli/config-file.js';
import { editHeader, parseEdited, withoutComments } from '../cli/editor.js';
import { editDistance, nearestKind, resolveKind, resourceName } from '../cli/kinds.js';
import { splitPath, type Manifest } from '../cli/manifests.js';
import { planCounts } from '../cli/plan.js';
import { resolveTargets } from '../cli/targets.js';
import { fromOperator } from '../cli/operator.js';
import { age, table } from '../cli/output.js';
import { editScript, unifiedDiff } from '../cli/unified-diff.js';
import { skipWithoutCorpus } from './helpers/corpus.js';

/** dashctl's pure parts (the CLI's own unit tests; cli/ is not in the mocha spec). */
describe('dashctl units', () => {
  describe('unifiedDiff', () => {
    const lines = (n: number, f = (i: number) => `line ${i}`) => Array.from({ length: n }, (_, i) => f(i + 1)).join('\n') + '\n';

    it('is empty for equal texts and a hunk with 3 lines of context otherwise', () => {
      expect(unifiedDiff('a\nb\n', 'a\nb\n', { from: 'x', to: 'y' })).to.equal('');
      const before = lines(20);
      const after = before.replace('line 10\n', 'line ten\n');
      expect(unifiedDiff(before, after, { from: 'live', to: 'file' })).to.equal(
        ['--- live', '+++ file', '@@ -7,7 +7,7 @@', ' line 7', ' line 8', ' line 9', '-line 10', '+line ten', ' line 11', ' line 12', ' line 13', ''].join('\n'),
      );
    });

    it('joins close changes into one hunk, keeps distant ones apart, counts added files from /dev/null', () => {
      const before = lines(40);
      const after = before.replace('line 5\n', 'five\n').replace('line 9\n', 'nine\n').replace('line 35\n', '');
      const d = unifiedDiff(before, after, { from: 'a', to: 'b' });
      expect(d.match(/^@@/gm)).to.have.length(2);
      expect(d).to.include('@@ -2,11 +2,11 @@').and.include('@@ -32,7 +32,6 @@');
      expect(unifiedDiff('', 'x\ny\n', { from: '/dev/null', to: 'b' })).to.equal('--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n');
    });

    it('finds a shortest edit script (applying it turns a into b)', () => {
      const a = 'the quick brown fox jumps over the lazy dog'.split(' ');
      const b = 'the slow brown cat jumps over the dog again'.split(' ');
      const ops = editScript(a, b);
      expect(ops.filter((o) => o.op !== '+').map((o) => o.line)).to.deep.equal(a);
      expect(ops.filter((o) => o.op !== '-').map((o) => o.line)).to.deep.equal(b);
      expect(ops.filter((o) => o.op !== ' ')).to.have.length(6); // LCS: the brown jumps over the dog
    });
  });

  it('resolves kinds from aliases, plurals and any case', () => {
    const cases: Record<string, string> = { dash: 'Dashboard', DS: 'Datasource', gds: 'GlobalDatasource', var: 'Variable', gvar: 'GlobalVariable', dashboards: 'Dashboard', globalRoles: 'GlobalRole', project: 'Project', Users: 'User' };
    for (const [text, kind] of Object.entries(cases)) expect(resolveKind(text).kind, text).to.equal(kind);
    expect(() => resolveKind('gizmo')).to.throw('unknown kind "gizmo"');
  });

  it('splits the server\'s JSON paths', () => {
    expect(splitPath('spec.panels["a b"].spec.queries[0].kind')).to.deep.equal(['spec', 'panels', 'a b', 'spec', 'queries', 0, 'kind']);
    expect(splitPath('(root)')).to.deep.equal([]);
  });

  it('compares ignoring key order and server-owned metadata, with the kind\'s own normalisation', () => {
    expect(sameJson({ a: 1, b: [1, { c: 2 }] }, { b: [1, { c: 2 }], a: 1 })).to.equal(true);
    expect(sameJson({ a: 1 }, { a: 1, b: 2 })).to.equal(false);
    const d = resolveKind('dash');
    const input = { kind: 'dashboard', metadata: { name: 'x', tags: ['b', 'a', 'b'], version: 7 }, spec: { panels: {}, layouts: [] } };
    expect(desiredForm(d, input, 'x', 'p')).to.deep.equal({ kind: 'Dashboard', metadata: { name: 'x', project: 'p', tags: ['a', 'b'] }, spec: { panels: {}, layouts: [], duration: '1h' } });
  });

  it('converts perses-operator custom resources', () => {
    const v2 = fromOperator({ apiVersion: 'perses.dev/v1alpha2', kind: 'PersesDatasource', metadata: { name: 'ds', namespace: 'team' }, spec: { instanceSelector: {}, config: { default: true } } });
    expect(v2!.object).to.deep.equal({ kind: 'Datasource', metadata: { name: 'ds', project: 'team' }, spec: { default: true } });
    expect(v2!.sourcePath(['spec', 'default'])).to.deep.equal(['spec', 'config', 'default']);
    const v1 = fromOperator({ apiVersion: 'perses.dev/v1alpha1', kind: 'PersesGlobalDatasource', metadata: { name: 'g', namespace: 'x' }, spec: { default: false } });
    expect(v1!.object).to.deep.equal({ kind: 'GlobalDatasource', metadata: { name: 'g' }, spec: { default: false } });
    expect(fromOperator({ apiVersion: 'perses.dev/v1alpha1', kind: 'Perses', metadata: {}, spec: {} })).to.equal(undefined);
  });

  it('aligns tables and prints kubectl-style ages', () => {
    expect(table(['NAME', 'AGE'], [['a', '1s'], ['longer', '2m']])).to.equal('NAME    AGE\na       1s\nlonger  2m\n');
    const now = Date.parse('2026-01-02T00:00:00Z');
    expect(['2026-01-01T23:59:15Z', '2026-01-01T23:57:00Z', '2026-01-01T21:00:00Z', '2025-12-28T00:00:00Z', '2024-01-01T00:00:00Z'].map((t) => age(t, now))).to.deep.equal(['45s', '3m', '3h', '5d', '2y']);
    expect(age(undefined)).to.equal('-');
  });
});

describe('dashctl habits (pure parts)', () => {
  it('suggests the nearest kind for a typo, and none for another word', () => {
    expect(editDistance('dashbords', 'dashboards')).to.equal(1);
    expect(editDistance('', 'abc')).to.equal(3);
    expect(nearestKind('dashbords')?.plural).to.equal('dashboards');
    expect(nearestKind('globaldatasource')?.plural).to.equal('globaldatasources');
    expect(nearestKind('varables')?.plural).to.equal('variables');
    expect(nearestKind('gizmos')).to.equal(undefined);
    expect(() => resolveKind('Dashbaord')).to.throw('did you mean dashboards?');
    expect(() => resolveKind('gizmo')).to.throw(/^unknown kind "gizmo"\nknown kinds: /);
  });

  it('names objects kubectl-style: kind/project/name, kind/name for global kinds', () => {
    expect(resourceName(resolveKind('dash'), 'cpu', 'team-a')).to.equal('dashboard/team-a/cpu');
    expect(resourceName(resolveKind('gds'), 'prom')).to.equal('globaldatasource/prom');
    expect(resourceName(resolveKind('projects'), 'team-a', 'team-a')).to.equal('project/team-a');
  });

  it('completes from a commander tree: subcommands, options of the command and its parents, choices, values by name', () => {
    const program = new Command('x').option('--context <name>');
    program.command('get').argument('<kind>').argument('[names...]').addOption(new Option('-o, --output <f>').choices(['json', 'yaml'])).option('-p, --project <p>').option('-A, --all');
    const config = program.command('config');
    config.command('use-context').argument('<context>');
    config.command('show');
    const values = { kind: () => ['dashboards', 'datasources', 'folders'], context: () => ['prod', 'dev'] };
    const c = (...words: string[]) => complete(program, words, values);
    expect(c('')).to.deep.equal(['get', 'config', 'help']);
    expect(c('get', 'da')).to.deep.equal(['dashboards', 'datasources']);
    expect(c('get', '-p', 'team', 'f')).to.deep.equal(['folders'], 'the value of -p is not the kind');
    expect(c('get', '-A', 'f')).to.deep.equal(['folders'], '-A takes no value');
    expect(c('get', 'folders', '')).to.deep.equal([], 'names: files (nothing)');
    expect(c('get', '-o', '')).to.deep.equal(['json', 'yaml']);
    expect(c('get', '--')).to.deep.equal(['--output', '--project', '--all', '--help', '--context']);
    expect(c('--context', 'd')).to.deep.equal(['dev']);
    expect(c('config', '')).to.deep.equal(['use-context', 'show', 'help']);
    expect(c('config', 'use-context', '')).to.deep.equal(['prod', 'dev']);
  });

  it('reads a configuration file of older dashctl versions as the context "default"', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashctl-units-'));
    try {
      const file = join(dir, 'config.json');
      writeFileSync(file, JSON.stringify({ url: 'http://a:1', project: 'p', accessToken: 't', unknown: 1 }));
      expect(loadConfig(file)).to.deep.equal({ currentContext: 'default', contexts: { default: { url: 'http://a:1', project: 'p', accessToken: 't' } } });
      writeFileSync(file, '{}');
      expect(loadConfig(file)).to.deep.equal({ contexts: {} });
      writeFileSync(file, JSON.stringify({ contexts: { a: 'x' } }));
      expect(() => loadConfig(file)).to.throw(CliError, '"contexts" must map context names to objects');
      expect(loadConfig(join(dir, 'none.json'))).to.deep.equal({ contexts: {} });
      expect(contextNameFor('http://127.0.0.1:8080', ['127.0.0.1:8080'])).to.equal('127.0.0.1:8080-2');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('edit: strips its comment lines, reads one YAML document, puts the errors first', () => {
    expect(withoutComments('# a\nkind: X\n# b\nspec:\n  text: "# not a comment"\n')).to.equal('kind: X\nspec:\n  text: "# not a comment"\n');
    expect(parseEdited('kind: X\n')).to.deep.equal({ value: { kind: 'X' } });
    expect(parseEdited('a: [1\n')).to.have.property('error').that.match(/^not valid YAML/);
    expect(parseEdited('a: 1\n---\nb: 2\n')).to.deep.equal({ error: 'expected one YAML document, found 2' });
    const header = editHeader('Dashboard p/x', ['bad (400 Invalid)', '  spec.a: nope']);
    expect(header.split('\n').slice(0, 3)).to.deep.equal(['# The edit could not be saved; fix it below (or empty the file to give up):', '#   bad (400 Invalid)', '#     spec.a: nope']);
    expect(header.split('\n').every((l) => l === '' || l.startsWith('#'))).to.equal(true);
  });
});

describe('dashctl YAML fast path (js-yaml) gives the same values as the yaml package', () => {
  const corpusFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? corpusFiles(join(dir, e.name)) : /\.ya?ml$/.test(e.name) ? [join(dir, e.name)] : []));
  const careful = (text: string) => parseAllDocuments(text).map((d) => d.toJS({ maxAliasCount: 100 }));

  it('on every YAML file of the Perses corpus', function () {
    const files = corpusFiles(skipWithoutCorpus(this, 'corpus'));
    expect(files.length).to.be.greaterThan(50);
    let fast = 0;
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      const got = fastLoad(text);
      if (got === undefined) continue; // anchors or a refusal: the careful path handles it
      fast++;
      expect(got, file).to.deep.equal(careful(text));
    }
    expect(fast).to.be.greaterThan(50);
  });

  it('on the values where YAML 1.1 and 1.2 differ, timestamps, merge keys and odd scalars', () => {
    const text = [
      'a: yes', 'b: no', 'c: on', 'd: 0o17', 'e: 0x1F', 'f: 017', 'g: 1_000', 'h: .inf', 'i: -.Inf', 'j: .nan', 'k: ~', 'l: Null', 'm: TRUE',
      'n: 2001-12-14t21:59:43.10-05:00', 'o: 0001-01-01T00:00:00Z', "p: '<<'", 'q: { <<: {x: 1} }', 'r: 1e3', 's: +12', 'u: "\\u00e9"', 'v: |-\n    x\n    y',
      'w: >\n    folded\n    text', 'x: [1, "2", 3.0]',
    ].join('\n');
    const got = fastLoad(text);
    expect(got).to.not.equal(undefined);
    expect(JSON.stringify(got)).to.equal(JSON.stringify(careful(text)));
  });

  it('leaves files with anchors (alias bombs) and invalid YAML to the careful path', () => {
    expect(fastLoad('a: &x [1, 2]\nb: *x\n')).to.equal(undefined);
    expect(fastLoad('a: [1, 2\n')).to.equal(undefined);
    expect(fastLoad('a: 1\na: 2\n')).to.equal(undefined);
    expect(fastLoad('t: 0b101\n')).to.equal(undefined); // js-yaml would read a number, YAML 1.2 core a string
    expect(fastLoad('query: a * b & c\n')).to.deep.equal([{ query: 'a * b & c' }]);
  });
});

describe('dashctl refuses files nested deeper than the server accepts, before parsing them whole', () => {
  const N = 100_000;
  const bombs: [string, string][] = [
    ['deep.yaml', `a: ${'['.repeat(N)}${']'.repeat(N)}`],
    ['deep.yaml', `${'- '.repeat(N)}x`],
    ['deep.yaml', `${'? '.repeat(N)}x`],
    ['deep.yaml', 'k: : >\n'.repeat(N / 2)],
    ['deep.yaml', Array.from({ length: 2000 }, (_, i) => `${' '.repeat(i)}k:`).join('\n')],
    ['deep.json', `${'['.repeat(N)}${']'.repeat(N)}`],
    ['no-extension', `${'{"a":'.repeat(N)}1${'}'.repeat(N)}`],
  ];
  for (const [file, text] of bombs) {
    it(`${file} ${JSON.stringify(text.slice(0, 12))}...: a CliError naming the file and the limit`, () => {
      expect(() => parsePieces(file, text)).to.throw(CliError, new RegExp(`^${file}: nested more than 100 levels deep`));
    });
  }

  it('the line finder of an error message does not parse a deep file whole either', () => {
    expect(lineFinder(() => `a: ${'['.repeat(N)}`)(0, ['a'])).to.equal(undefined);
  });

  it('control: 100 levels are read, on both the fast and the careful path', () => {
    const nested = (n: number) => `a: ${'['.repeat(n - 1)}${']'.repeat(n - 1)}\n`;
    expect(parsePieces('ok.yaml', nested(100))).to.have.length(1);
    expect(parsePieces('ok.yaml', `x: &anchor 1\n${nested(100)}`)).to.have.length(1);
    expect(() => parsePieces('no.yaml', nested(101))).to.throw(CliError, /nested more than 100/);
  });
});

describe('dashctl: the one project rule and the plan line', () => {
  const manifest = (object: Record<string, unknown>): Manifest => ({ file: 'f.yaml', index: 0, ofFile: 1, object, lineOf: () => undefined });
  const folder = (name: string, project?: string) => manifest({ kind: 'Folder', metadata: { name, ...(project ? { project } : {}) }, spec: {} });

  it("an object's own project wins; -p or the default fills in the others", () => {
    const { targets, unresolved } = resolveTargets([folder('a', 'own'), folder('b')], { fallback: 'dflt' });
    expect(unresolved).to.deep.equal([]);
    expect(targets.map((t) => t.label)).to.deep.equal(['Folder own/a', 'Folder dflt/b']);
    expect(resolveTargets([folder('b')], { flag: 'flag', fallback: 'dflt' }).targets[0].project).to.equal('flag');
  });

  it('-p contradicting metadata.project is unresolved, naming the object and both projects; -p equal to it is fine', () => {
    const { targets, unresolved } = resolveTargets([folder('a', 'own'), folder('c', 'flag')], { flag: 'flag' });
    expect(targets.map((t) => t.label)).to.deep.equal(['Folder flag/c']);
    expect(unresolved).to.have.length(1);
    expect(unresolved[0].message).to.equal('Folder own/a says metadata.project "own" but -p says "flag"; drop -p to apply it to "own", change metadata.project, or pass --force-project to move it into "flag"');
  });

  it('--force-project moves the object, and the body sent names the new project', () => {
    const m = folder('a', 'own');
    const { targets } = resolveTargets([m], { flag: 'flag', force: true });
    expect(targets[0].label).to.equal('Folder flag/a');
    expect((m.object.metadata as { project: string }).project).to.equal('flag');
  });

  it('global kinds ignore -p; a project kind without any project is unresolved', () => {
    const { targets, unresolved } = resolveTargets([manifest({ kind: 'GlobalVariable', metadata: { name: 'g' }, spec: {} }), folder('x')], { flag: undefined });
    expect(targets.map((t) => t.label)).to.deep.equal(['GlobalVariable g']);
    expect(unresolved[0].message).to.match(/has no metadata.project/);
  });

  it('the plan line counts each action, and refusals only when there are some', () => {
    const step = (action: 'create' | 'configure' | 'unchanged') => ({ label: 'x', action, body: {} });
    expect(planCounts({ steps: [step('create'), step('unchanged'), step('unchanged')], refused: [], prunes: [] })).to.equal('create 1, configure 0, unchanged 2, prune 0');
    expect(planCounts({ steps: [step('configure')], refused: [{ label: 'y', error: new Error('no') }], prunes: [] })).to.equal('create 0, configure 1, unchanged 0, prune 0, refused 1');
  });
});
