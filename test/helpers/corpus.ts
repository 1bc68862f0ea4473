import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PACKAGE_ROOT } from '../../src/paths.js';

/**
 * The corpora of real resources some suites read. They are not part of the repository (they are
 * copies of other projects' files): `DASHPLANE_CORPUS` names a directory holding `corpus/` (Perses
 * resources) and `corpus-grafana/` (Grafana dashboards); without it, `../shared/` next to the
 * checkout is tried. A suite whose corpus is missing is skipped, and the run says so once at the
 * end (CONTRIBUTING.md, "Test corpora", says what they hold).
 */
export type CorpusName = 'corpus' | 'corpus-grafana';

/** The environment variable naming the directory that holds the corpora. */
export const CORPUS_ENV = 'DASHPLANE_CORPUS';

/** The directory of a corpus, or undefined when it is not available. */
export function corpusDir(name: CorpusName): string | undefined {
  const base = process.env[CORPUS_ENV] ? resolve(process.env[CORPUS_ENV]!) : join(PACKAGE_ROOT, '..', 'shared');
  const dir = join(base, name);
  return existsSync(join(dir, 'INDEX.json')) ? dir : undefined;
}

/**
 * Suites skipped for want of a corpus (or of a program: `skipFor`) are noted in a file of this
 * run, so the note comes once at the end even when the suites run in several worker processes
 * (mocha --parallel): the main process names the run (`mochaGlobalSetup`, test/global-fixtures.ts) and prints the note. The
 * variable is not a DASHPLANE_* one: the servers the tests start would warn about an unknown key.
 */
export const RUN_ENV = 'MOCHA_DASHPLANE_RUN';
const skipsFile = () => join(tmpdir(), `dashplane-corpus-skips-${process.env[RUN_ENV] ?? process.pid}`);

/**
 * In a `before` hook or a test (`function () { ... }`, not an arrow): skips it (a hook: its whole
 * suite) when the corpus is missing, remembering the suite for the summary; else returns the
 * corpus directory.
 */
export function skipWithoutCorpus(ctx: Mocha.Context, name: CorpusName): string {
  const dir = corpusDir(name);
  if (dir) return dir;
  skipFor(ctx, `${name}/`);
}

/**
 * Skips the hook or test of `ctx` (a hook: its whole suite) for want of `needs` (a corpus
 * directory, a program), remembering it for the end-of-run note with `hint`, how to get it (the
 * corpora share one hint).
 */
export function skipFor(ctx: Mocha.Context, needs: string, hint?: string): never {
  const runnable = ctx.test as (Mocha.Runnable & { type?: string }) | undefined;
  const title = (runnable?.type === 'hook' ? runnable.parent?.fullTitle() : runnable?.fullTitle()) || 'a suite';
  appendFileSync(skipsFile(), `${JSON.stringify({ needs, title, hint })}\n`);
  ctx.skip();
}

/** The end-of-run note naming the skipped suites and how to get what they need (empty when none was); the record is removed. */
export function skippedSummary(): string {
  const file = skipsFile();
  if (!existsSync(file)) return '';
  const lines = new Set<string>();
  const hints = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const { needs, title, hint } = JSON.parse(line) as { needs: string; title: string; hint?: string };
    lines.add(`  - ${title} (needs ${needs})`);
    if (hint) hints.add(hint);
  }
  rmSync(file, { force: true });
  const corpora = [...lines].some((l) => /\(needs corpus(?:-grafana)?\/\)$/.test(l));
  return [
    'Skipped because something they need is missing:',
    ...lines,
    ...(corpora
      ? [
          `Set ${CORPUS_ENV} to a directory holding corpus/ (and corpus-grafana/), or place them in ../shared/ next to this checkout,`,
          'then run npm test again. CONTRIBUTING.md ("Test corpora") says what they contain.',
        ]
      : []),
    ...hints,
  ].join('\n');
}
