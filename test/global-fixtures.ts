/**
 * Mocha's global fixtures (loaded with --require; run once, in the main process, also with
 * --parallel): the run gets a name its worker processes share, and the note about suites skipped
 * for want of a test corpus is printed once at the end.
 */
import { RUN_ENV, skippedSummary } from './helpers/corpus.js';

export function mochaGlobalSetup(): void {
  process.env[RUN_ENV] ??= `${process.pid}-${Date.now()}`;
}

export function mochaGlobalTeardown(): void {
  const note = skippedSummary();
  if (note) console.log(`\n${note}`);
}
