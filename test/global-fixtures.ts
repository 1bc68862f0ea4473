/**
 * Mocha's global fixtures (loaded with --require; run once, in the main process, also with
 * --parallel): the run gets a name its worker processes share and one Prometheus scraping a node
 * exporter for its browser suites (helpers/monitoring.ts), and the note about suites skipped for
 * want of a test corpus or a program (MariaDB) is printed once at the end.
 */
import { RUN_ENV, skippedSummary } from './helpers/corpus.js';
import { startSharedMonitoring, stopSharedMonitoring } from './helpers/monitoring.js';

export async function mochaGlobalSetup(): Promise<void> {
  process.env[RUN_ENV] ??= `${process.pid}-${Date.now()}`;
  await startSharedMonitoring();
}

export async function mochaGlobalTeardown(): Promise<void> {
  await stopSharedMonitoring();
  const note = skippedSummary();
  if (note) console.log(`\n${note}`);
}
