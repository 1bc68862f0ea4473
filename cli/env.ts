import { Context } from './context.js';

/** What every makeXCommand receives: the context, made on first use (so --help needs no config). */
export interface Env {
  ctx(): Context;
  /** The context if one was made (to close its connections), without making one. */
  made(): Context | undefined;
}

export function lazyEnv(make: () => Context = () => new Context()): Env {
  let ctx: Context | undefined;
  return { ctx: () => (ctx ??= make()), made: () => ctx };
}
