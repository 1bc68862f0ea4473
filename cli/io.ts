import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';

/** A run's environment variables (DASHCTL_*, NO_COLOR, EDITOR, HOME...). */
export type Vars = Readonly<Record<string, string | undefined>>;

/**
 * Everything a dashctl run takes from its surroundings: where it writes, whether those are
 * terminals, whether to colour, its environment variables, its working directory, standard input
 * and the terminal prompts. Commands read these, never `process`, so that a run can be made in
 * process (the tests do, as Perses tests percli) with its own environment and directory, and
 * nothing of one run leaks into the next.
 */
export interface Io {
  out(text: string): void;
  err(text: string): void;
  /** stdout is a terminal. */
  tty: boolean;
  /** stderr is a terminal (progress lines go there). */
  errTty: boolean;
  /** stdin is a terminal (prompts). */
  inTty: boolean;
  /** The width of the terminal, when there is one (help text is wrapped to it). */
  columns?: number;
  /** ANSI colour on stdout: decided once, by whoever made the Io (a terminal, and NO_COLOR unset). */
  colour: boolean;
  /** The environment variables of the run. */
  env: Vars;
  /** The directory relative paths are read from and shown against. */
  cwd: string;
  /** All of standard input. */
  stdin(): Promise<string>;
  /** Asks on the terminal (stderr); with `hidden`, what is typed is not echoed (passwords). */
  ask(question: string, hidden?: boolean): Promise<string>;
}

/** Whether colour is wanted on a stream: a terminal, and `NO_COLOR` unset (https://no-color.org). */
export function wantsColour(tty: boolean, env: Vars): boolean {
  return tty && !env.NO_COLOR;
}

/** The Io of the dashctl process itself: its streams, `process.env`, its working directory. */
export function processIo(): Io {
  const tty = Boolean(process.stdout.isTTY);
  return {
    out: (t) => void process.stdout.write(t),
    err: (t) => void process.stderr.write(t),
    tty,
    errTty: Boolean(process.stderr.isTTY),
    inTty: Boolean(process.stdin.isTTY),
    columns: process.stdout.columns,
    colour: wantsColour(tty, process.env),
    env: process.env,
    cwd: process.cwd(),
    stdin: readProcessStdin,
    ask,
  };
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function ask(question: string, hidden = false): Promise<string> {
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
