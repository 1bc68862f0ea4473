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
 * Suites skipped for want of a corpus are noted in a file of this run, so the note comes once at
 * the end even when the suites run in several worker processes (mocha --parallel): the main
 * process names the run (`mochaGlobalSetup`, test/global-fixtures.ts) and prints the note. The
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
  const runnable = ctx.test as (Mocha.Runnable & { type?: string }) | undefined;
  const title = (runnable?.type === 'hook' ? runnable.parent?.fullTitle() : runnable?.fullTitle()) || 'a suite';
  appendFileSync(skipsFile(), `${JSON.stringify({ name, title })}\n`);
  ctx.skip();
}

/** The end-of-run note naming the skipped suites and how to get them (empty when none was); the record is removed. */
export function skippedSummary(): string {
  const file = skipsFile();
  if (!existsSync(file)) return '';
  const skipped = new Map<CorpusName, Set<string>>();
  for (const line of readFileSync(file, 'utf8').split('\n').filter(Boolean)) {
    const { name, title } = JSON.parse(line) as { name: CorpusName; title: string };
    if (!skipped.has(name)) skipped.set(name, new Set());
    skipped.get(name)!.add(title);
  }
  rmSync(file, { force: true });
  const lines = ['Skipped because a test corpus is missing:'];
  for (const [name, titles] of skipped) for (const t of titles) lines.push(`  - ${t} (needs ${name}/)`);
  lines.push(
    `Set ${CORPUS_ENV} to a directory holding corpus/ (and corpus-grafana/), or place them in ../shared/ next to this checkout,`,
    'then run npm test again. CONTRIBUTING.md ("Test corpora") says what they contain.',
  );
  return lines.join('\n');
}
