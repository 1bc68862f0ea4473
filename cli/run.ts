import { CommanderError } from 'commander';
import { COMPLETE_COMMAND, completions } from './commands/completion.js';
import { lazyEnv } from './env.js';
import { CliError, describeError, HttpError } from './errors.js';
import type { Io } from './io.js';
import { buildProgram } from './program.js';

/**
 * One dashctl run: `args` are the words after `dashctl`, `io` everything the run reads and writes
 * (cli/io.ts). Returns the exit code: the one the command's action returned, a CliError's, 1 for
 * any other error (reported on stderr as `error: ...`), commander's for a usage error. Nothing of
 * `process` is read or changed here, so runs can be made one after another, or side by side, in
 * one process (the bin makes one; the tests make many, as Perses tests percli).
 */
export async function runDashctl(args: readonly string[], io: Io): Promise<number> {
  const env = lazyEnv(io);
  let code: number;
  try {
    // The shell completion scripts ask here, before commander would read options among the words.
    if (args[0] === COMPLETE_COMMAND) io.out(await completions(buildProgram(env), args.slice(1), env));
    else await buildProgram(env).parseAsync([...args], { from: 'user' });
    code = env.exitCode;
  } catch (e) {
    code = report(io, e);
  }
  try {
    await env.made()?.close();
  } catch {
    // closing keep-alive connections cannot change the outcome
  }
  return code;
}

/** Writes what went wrong (commander already wrote its own errors) and answers the exit code. */
function report(io: Io, e: unknown): number {
  if (e instanceof CommanderError) return e.exitCode;
  io.err(`error: ${describeError(e)}\n`);
  if (e instanceof HttpError && e.status === 401) io.err('(log in with dashctl login)\n');
  if (!(e instanceof CliError) && io.env.DASHCTL_DEBUG) io.err(`${(e as Error).stack}\n`);
  return e instanceof CliError ? e.exitCode : 1;
}
