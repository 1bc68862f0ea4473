import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** Asks on the terminal; with `hidden`, what is typed is not echoed (passwords). */
export function ask(question: string, hidden = false): Promise<string> {
  let muted = false;
  const output = new Writable({
    write(chunk, _enc, done) {
      if (!muted) process.stderr.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input: process.stdin, output, terminal: true });
  return new Promise((resolve) => {
    rl.question(question, (answer) => {
      rl.close();
      if (hidden) process.stderr.write('\n');
      resolve(answer);
    });
    muted = hidden;
  });
}

/** y/N question; only "y" or "yes" is a yes. */
export async function confirm(question: string): Promise<boolean> {
  return /^y(es)?$/i.test((await ask(`${question} [y/N] `)).trim());
}
