import { configPath } from './config-file.js';
import { Context } from './context.js';
import type { Io } from './io.js';

/** What every makeXCommand receives: the run's Io, the context made on first use (so --help needs no config), and the exit code. */
export interface Env {
  readonly io: Io;
  ctx(): Context;
  /** The context if one was made (to close its connections), without making one. */
  made(): Context | undefined;
  /** Names the context to use (the global `--context`), before the first `ctx()`. */
  selectContext(name: string | undefined): void;
  /** The exit code the command's action returned (see `exits`); 0 until one did. */
  exitCode: number;
}

/** An Env over `io` that makes its Context on first use, with the context name selected by then. */
export function lazyEnv(
  io: Io,
  make: (contextName?: string) => Context = (name) => new Context(io, configPath(io.env, io.cwd), name),
): Env {
  let ctx: Context | undefined;
  let name: string | undefined;
  return {
    io,
    ctx: () => (ctx ??= make(name)),
    made: () => ctx,
    selectContext: (n) => {
      name = n;
    },
    exitCode: 0,
  };
}

/**
 * A command's action: the exit code it returns (a number; anything else is 0) becomes the run's,
 * which the runner (cli/run.ts) hands to the caller; errors it throws are reported there. No
 * command sets `process.exitCode`.
 */
export function exits<A extends unknown[]>(env: Env, action: (...args: A) => unknown): (...args: A) => Promise<void> {
  return async (...args: A) => {
    const code = await action(...args);
    env.exitCode = typeof code === 'number' ? code : 0;
  };
}
