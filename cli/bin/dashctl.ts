#!/usr/bin/env node
/** dashctl: the command-line client of dashplane (README "dashctl"). One run (cli/run.ts) over the process's streams. */
import { processIo } from '../io.js';
import { runDashctl } from '../run.js';

process.exitCode = await runDashctl(process.argv.slice(2), processIo());
// Exit once what was written has been flushed (pipes are asynchronous on some systems).
process.stdout.write('', () => process.stderr.write('', () => process.exit()));
