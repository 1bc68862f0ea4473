import type { Io } from './io.js';

/** y/N question on the terminal; only "y" or "yes" is a yes. */
export async function confirm(io: Io, question: string): Promise<boolean> {
  return /^y(es)?$/i.test((await io.ask(`${question} [y/N] `)).trim());
}
