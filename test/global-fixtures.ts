/**
 * Mocha's global fixtures (loaded with --require; run once, in the main process, also with
 * --parallel): before the run, a note naming the programs of Debian packages that are missing and
 * the suites that will be skipped for want of them (helpers/programs.ts); the run gets a name its
 * worker processes share and one Prometheus scraping a node exporter for its browser suites
 * (helpers/monitoring.ts); the note about suites skipped for want of a test corpus or a program
 * is printed once at the end.
 */
import { RUN_ENV, skippedSummary } from './helpers/corpus.js';
import { startSharedMonitoring, stopSharedMonitoring } from './helpers/monitoring.js';
import { missingProgramsNote } from './helpers/programs.js';

/** Where the built test files are (as in .mocharc.cjs). */
const TEST_ROOTS = ['dist/src', 'dist/sdk', 'dist/cli', 'dist/test'];

export async function mochaGlobalSetup(): Promise<void> {
  const missing = missingProgramsNote(TEST_ROOTS);
  if (missing) console.log(`${missing}\n`);
  process.env[RUN_ENV] ??= `${process.pid}-${Date.now()}`;
  await startSharedMonitoring();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopSharedMonitoring();
  const note = skippedSummary();
  if (note) console.log(`\n${note}`);
}
