import { configPath } from './config-file.js';
import { Context } from './context.js';
import { processIo } from './output.js';

/** What every makeXCommand receives: the context, made on first use (so --help needs no config). */
export interface Env {
  ctx(): Context;
  /** The context if one was made (to close its connections), without making one. */
  made(): Context | undefined;
  /** Names the context to use (the global `--context`), before the first `ctx()`. */
  selectContext(name: string | undefined): void;
}

/** An Env that makes its Context on first use, with the context name selected by then. */
export function lazyEnv(make: (contextName?: string) => Context = (name) => new Context(processIo(), configPath(), name)): Env {
  let ctx: Context | undefined;
  let name: string | undefined;
  return {
    ctx: () => (ctx ??= make(name)),
    made: () => ctx,
    selectContext: (n) => {
      name = n;
    },
  };
}
