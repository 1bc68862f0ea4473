#!/usr/bin/env node
/** dashctl: the command-line client of dashplane (README "dashctl"). */
import { CommanderError } from 'commander';
import { lazyEnv } from '../env.js';
import { CliError, describeError, HttpError } from '../errors.js';
import { buildProgram } from '../program.js';
import { COMPLETE_COMMAND, completions } from '../commands/completion.js';

const env = lazyEnv();
let code = 0;
try {
  // The shell completion scripts ask here, before commander would read options among the words.
  if (process.argv[2] === COMPLETE_COMMAND) process.stdout.write(completions(buildProgram(env), process.argv.slice(3)));
  else await buildProgram(env).parseAsync(process.argv);
  code = typeof process.exitCode === 'number' ? process.exitCode : 0;
} catch (e) {
  if (e instanceof CommanderError) {
    code = e.exitCode;
  } else {
    process.stderr.write(`error: ${describeError(e)}\n`);
    if (e instanceof HttpError && e.status === 401) process.stderr.write('(log in with dashctl login)\n');
    code = e instanceof CliError ? e.exitCode : 1;
    if (!(e instanceof CliError) && process.env.DASHCTL_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
  }
}
try {
  await env.made()?.close();
} catch {
  // closing keep-alive connections cannot change the outcome
}
// Exit once what was written has been flushed (pipes are asynchronous on some systems).
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
