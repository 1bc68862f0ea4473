import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { generateDocs } from '../scripts/docs.js';
import { REASONS, statusOf } from '../src/api/error-handler.js';
import { buildKindRegistry } from '../src/kinds/index.js';
import { PACKAGE_ROOT } from '../src/paths.js';

const TOP_DOCS = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', 'CHANGELOG.md'].filter((f) => existsSync(join(PACKAGE_ROOT, f)));
const DOCS = [
  ...TOP_DOCS,
  ...readdirSync(join(PACKAGE_ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add(
      m[1]
        .trim()
        .toLowerCase()
        .replace(/[^\p{L}\p{N}\s_-]/gu, '')
        .replace(/\s/g, '-'),
    );
  }
  return out;
}

function files(dir: string, exts: RegExp): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = join(dir, name);
    if (name === 'node_modules' || name === 'dist' || name === 'generated') return [];
    return statSync(full).isDirectory() ? files(full, exts) : exts.test(name) ? [full] : [];
  });
}

describe('documentation in the repository', () => {
  it('docs/configuration.md and the coverage table of docs/security.md are what `npm run docs` makes (run it after changing schemas/config.json or a test title)', () => {
    for (const [file, content] of generateDocs()) {
      const onDisk = readFileSync(join(PACKAGE_ROOT, file), 'utf8');
      expect(onDisk === content, `${file} is stale: run npm run docs and commit the result`).to.equal(true);
    }
  });

  it('every relative link in the Markdown files points at a file of the repository (and a heading that exists)', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      const text = readFileSync(join(PACKAGE_ROOT, doc), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1];
        if (/^[a-z]+:/i.test(target)) continue;
        const [path, anchor] = target.split('#', 2);
        const file = path ? join(dirname(join(PACKAGE_ROOT, doc)), path) : join(PACKAGE_ROOT, doc);
        if (!existsSync(file)) broken.push(`${doc}: ${target} (no such file)`);
        else if (anchor && file.endsWith('.md') && !anchors(readFileSync(file, 'utf8')).has(anchor))
          broken.push(`${doc}: ${target} (no such heading)`);
        else if (relative(PACKAGE_ROOT, file).startsWith('..')) broken.push(`${doc}: ${target} (outside the repository)`);
      }
    }
    expect(broken).to.deep.equal([]);
  });

  it('no code or document points at files outside the repository (design notes, ../shared, /work)', () => {
    // the corpus helper and the CI script name the default corpus location on purpose
    const allowed = new Set(['test/helpers/corpus.ts', 'test/docs.test.ts', '.ci/run', 'README.md', 'CONTRIBUTING.md']);
    const roots = ['src', 'cli', 'scripts', 'bench', 'test', 'ui', 'docs', 'examples', 'deploy', '.ci'].map((d) => join(PACKAGE_ROOT, d));
    const all = [
      ...roots.flatMap((r) => files(r, /\.(ts|tsx|js|md|yaml|yml|json|service|sh)$|^run$|^Dockerfile$/)),
      ...TOP_DOCS.map((f) => join(PACKAGE_ROOT, f)),
      join(PACKAGE_ROOT, 'Dockerfile'),
    ].filter(existsSync);
    const outside =
      /\.\.\/shared\b|design\/(API|UI|ARCHITECTURE|SECURITY-TESTS)\.md|(?<![\w/])(?:UI|ARCHITECTURE)\.md|SECURITY-TESTS\.md|(?<!docs\/)(?<![\w/])API\.md|\/work\//;
    const found: string[] = [];
    for (const f of all) {
      const rel = relative(PACKAGE_ROOT, f);
      if (allowed.has(rel)) continue;
      readFileSync(f, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (outside.test(line)) found.push(`${rel}:${i + 1}: ${line.trim().slice(0, 120)}`);
        });
    }
    expect(found).to.deep.equal([]);
  });

  it('docs/api.md lists every error reason with its status, and every kind with its plural and scope', () => {
    const api = readFileSync(join(PACKAGE_ROOT, 'docs', 'api.md'), 'utf8');
    for (const r of REASONS) expect(api, r).to.match(new RegExp(`^\\| \`${r}\` \\| ${statusOf(r)} \\|`, 'm'));
    for (const d of buildKindRegistry().all())
      expect(api, d.kind).to.match(new RegExp(`^\\| ${d.kind} \\| ${d.plural} \\| ${d.scope} \\| ${d.history ? 'yes' : ''} ?\\|`, 'm'));
  });
});
